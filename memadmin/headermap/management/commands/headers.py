"""`manage.py headers stale [--json]` and `manage.py headers synced`: the dreamer's sync tool."""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from memadmin.composites.selectors import memories_by_display_ids
from memadmin.headermap.stale_membership import MembershipChange
from memadmin.headermap.stale_selectors import StaleHeader, stale_headers
from memadmin.headermap.stale_services import header_mark_synced
from memadmin.projects.models import Project


def _project(identity: str | None) -> Project | None:
    if not identity:
        return None
    try:
        return Project.objects.get(identity=identity)
    except Project.DoesNotExist:
        raise CommandError(f"No project {identity!r}.") from None


def membership_as_dict(change: MembershipChange) -> dict:
    """Return a change to a header's set of details as JSON-ready values."""
    return {
        "change": change.kind,
        "summary": change.summary,
        "composite": {
            "pk": change.composite_pk,
            "type": change.composite_type,
            "title": change.composite_title,
            "exists": change.composite_exists,
        },
        "members": [
            {"id": member.display_id, "pk": member.pk, "exists": member.exists}
            for member in change.members
        ],
        "at": change.at,
        "actor": change.actor,
        "reason": change.reason,
    }


def header_as_dict(entry: StaleHeader) -> dict:
    """Return a stale header, its changed details and its membership changes as JSON values."""
    header = entry.header
    return {
        "id": header.display_id,
        "pk": header.pk,
        "project": header.project.identity,
        "category": header.category,
        "content": header.content,
        "since": entry.since,
        "synced": entry.synced,
        "details": [
            {
                "id": change.detail.display_id,
                "pk": change.detail.pk,
                "updated_at": change.detail.updated_at,
                "before": change.before,
                "now": change.detail.content,
                "fields": {name: [old, new] for name, old, new in change.fields},
                "versions": [
                    {
                        "updated_at": version.updated_at,
                        "change": version.history_type,
                        "actor": version.actor,
                        "reason": version.reason,
                    }
                    for version in change.versions
                ],
            }
            for change in entry.changes
        ],
        "membership": [membership_as_dict(change) for change in entry.membership],
    }


class Command(BaseCommand):
    help = (
        "List the headers whose details changed since they were last synced (stale), or mark "
        "headers synced after their summaries were reviewed (synced)."
    )

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        stale = actions.add_parser("stale", help="list the stale headers and what changed")
        stale.add_argument("--json", action="store_true", help="print JSON")
        stale.add_argument("--project", help="only this project identity")
        synced = actions.add_parser("synced", help="mark headers synced")
        synced.add_argument("--project", required=True, help="the project identity")
        synced.add_argument(
            "ids", nargs="+", type=int, metavar="ID", help="header ids, as the agent sees them"
        )
        synced.add_argument("--reason", default="", help="why, for the audit trail")
        synced.add_argument(
            "--actor", choices=("dreamer", "historian", "agent"), default="agent", help="who syncs"
        )

    def handle(self, *args, **options):
        if options["action"] == "stale":
            self._stale(_project(options["project"]), as_json=options["json"])
        else:
            self._synced(
                _project(options["project"]), options["ids"], options["reason"], options["actor"]
            )

    def _stale(self, project: Project | None, *, as_json: bool) -> None:
        entries = stale_headers(project)
        if as_json:
            document = [header_as_dict(entry) for entry in entries]
            self.stdout.write(json.dumps(document, ensure_ascii=False, indent=2))
            return
        for entry in entries:
            # The details whose text changed, then each change to the set of details.
            details = [f"#{change.detail.display_id}" for change in entry.changes]
            membership = [change.summary for change in entry.membership]
            changed = "; ".join(([", ".join(details)] if details else []) + membership)
            self.stdout.write(
                f"#{entry.header.display_id}\t{entry.header.project.identity}\t{changed}\t"
                f"{entry.header.content[:80]}"
            )
        self.stderr.write(f"{len(entries)} stale header(s).")

    @transaction.atomic
    def _synced(self, project: Project, ids: list[int], reason: str, actor: str) -> None:
        try:
            headers = memories_by_display_ids(project, ids)
            for header in headers:
                header_mark_synced(header=header, actor=actor, reason=reason)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error
        for header in headers:
            self.stdout.write(f"#{header.display_id} marked synced.")
