"""Read what each session was really given, from a lifecycle store (schema v99 and later).

Plain Python over ``sqlite3``. Upstream records, per session, harness and project, the
memories a renderer applied (``memory_applied_rows``: each memory's ``applied_revision``
and the ``projected_text`` it served) beside the snapshot itself
(``memory_applied_snapshots``; ``migration-v99-memory-lifecycle.ts``). A store without
them has none; older stores record only the ids of a session's block
(``session_meta.memory_block_ids``, read by the sync).

``compare_seen`` sets what a session was given against today's selection, one sentence per
memory that differs, built here once for the page and any command.
"""

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from memadmin.core.contextdb.opening import table_columns

APPLIED_COLUMNS = ("session_id", "harness", "memory_id", "applied_revision", "projected_text")


@dataclass(frozen=True, slots=True)
class AppliedRow:
    """One memory a session was given: its id, the revision then (None: not recorded)."""

    memory_id: int
    revision: int | None
    text: str = ""


@dataclass(frozen=True, slots=True)
class NowRow:
    """A memory as the store holds it now (for the comparison)."""

    revision: int | None
    status: str


@dataclass
class SessionSeen:
    """What one session was given (``source`` says from which table) and what differs."""

    session_id: str
    harness: str
    source: str  # "applied snapshot" or "memory_block_ids"
    rows: list[AppliedRow]
    differences: list[str] = field(default_factory=list)


def read_applied(connection: sqlite3.Connection, project_path: str) -> list[SessionSeen]:
    """Return each session's applied rows for the project, by session and harness.

    A store without ``memory_applied_rows`` (or one of its columns) gives none; a row whose
    memory id is not a whole number is left out, a revision that is not one is unknown.
    """
    columns = table_columns(connection, "memory_applied_rows")
    if columns is None or not set(APPLIED_COLUMNS) <= columns.keys():
        return []
    seen: dict[tuple[str, str], SessionSeen] = {}
    for session_id, harness, memory_id, revision, text in connection.execute(
        f"SELECT {', '.join(APPLIED_COLUMNS)} FROM memory_applied_rows "
        "WHERE project_path = ? ORDER BY session_id, harness, memory_id",
        (project_path,),
    ):
        if not _whole(memory_id):
            continue
        key = (str(session_id), str(harness))
        entry = seen.setdefault(key, SessionSeen(key[0], key[1], "applied snapshot", []))
        entry.rows.append(
            AppliedRow(memory_id, revision if _whole(revision) else None, str(text or ""))
        )
    return list(seen.values())


def read_now(connection: sqlite3.Connection, ids: Iterable[int]) -> dict[int, NowRow]:
    """Return the store's rows now (revision, status) for the given memory ids."""
    wanted = sorted(set(ids))
    columns = table_columns(connection, "memories") or {}
    revision = "revision" if "revision" in columns else "NULL"
    found: dict[int, NowRow] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        for row_id, row_revision, status in connection.execute(
            f"SELECT id, {revision}, status FROM memories "
            f"WHERE id IN ({', '.join('?' * len(chunk))})",
            chunk,
        ):
            found[row_id] = NowRow(row_revision if _whole(row_revision) else None, str(status))
    return found


def compare_seen(
    seen: SessionSeen,
    now: Mapping[int, NowRow],
    today: Mapping[int, str | None],
) -> list[str]:
    """Return a sentence for each memory whose place differs between then and today.

    ``now`` is each memory as the store holds it now; ``today`` maps every memory of
    today's selection to None when it is injected, else the reason it is left out (a
    memory absent from it is not a candidate today).
    """
    lines = []
    given = {row.memory_id for row in seen.rows}
    for row in seen.rows:
        current = now.get(row.memory_id)
        if current is None:
            lines.append(f"#{row.memory_id} injected then, gone from the store now")
            continue
        if None not in (row.revision, current.revision) and current.revision != row.revision:
            lines.append(
                f"#{row.memory_id} injected at revision {row.revision}, now at "
                f"{current.revision}: edited since"
            )
        if row.memory_id not in today:
            lines.append(f"#{row.memory_id} injected then, left out now: {current.status}")
        elif today[row.memory_id] is not None:
            lines.append(f"#{row.memory_id} injected then, left out now: {today[row.memory_id]}")
    for memory_id, reason in today.items():
        if reason is None and memory_id not in given:
            lines.append(f"#{memory_id} not injected then, injected now")
    return lines


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
