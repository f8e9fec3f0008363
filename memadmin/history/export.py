"""The audit log as CSV and JSON, streamed row by row so a long log never sits in memory."""

import csv
import json
from collections.abc import Iterable, Iterator

from memadmin.audit.models import AuditEvent

COLUMNS = (
    "id",
    "created_at",
    "actor",
    "actor_kind",
    "action",
    "project",
    "object_type",
    "object_id",
    "object",
    "category",
    "reason",
    "changes",
)
# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection);
# such a cell is exported with a leading apostrophe, as OWASP recommends.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def event_as_dict(event: AuditEvent) -> dict:
    """Return the event as plain JSON-ready data, one key per export column."""
    return {
        "id": event.pk,
        "created_at": event.created_at.isoformat(),
        "actor": event.actor_label,
        "actor_kind": event.actor_kind,
        "action": event.action,
        "project": event.project.identity if event.project_id else None,
        "object_type": event.object_type,
        "object_id": event.object_id,
        "object": event.object_repr,
        "category": event.category,
        "reason": event.reason,
        "changes": event.changes,
    }


class _Line:
    """A file-like object whose write returns what was written, for csv.writer."""

    def write(self, value: str) -> str:
        return value


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_lines(events: Iterable[AuditEvent]) -> Iterator[str]:
    """Yield the CSV export: a header line, then one line per event."""
    writer = csv.writer(_Line())
    yield writer.writerow(COLUMNS)
    for event in events:
        row = event_as_dict(event)
        yield writer.writerow([_cell(row[column]) for column in COLUMNS])


def json_chunks(events: Iterable[AuditEvent], *, filters: dict) -> Iterator[str]:
    """Yield the JSON export: `{"filters": {...}, "events": [...]}`, one event per chunk."""
    yield '{"filters": ' + json.dumps(filters, sort_keys=True) + ', "events": ['
    for index, event in enumerate(events):
        yield ("," if index else "") + "\n" + json.dumps(event_as_dict(event), ensure_ascii=False)
    yield "\n]}\n"
