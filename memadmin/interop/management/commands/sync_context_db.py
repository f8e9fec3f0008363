"""`manage.py sync_context_db PATH [--project P]`: bring a magic-context store's memories in."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memadmin.interop.composites.publish import PublishRefused, composites_publish
from memadmin.interop.models import UpstreamStore
from memadmin.interop.writing.progress import ProgressBar
from memadmin.interop.writing.services import DEFAULT_PACK, SyncRefused, context_db_sync

PROBLEMS_SHOWN = 50


class Command(BaseCommand):
    help = (
        "Sync memories and sessions from a magic-context store (context.db), both ways: the "
        "store's changes come in, and memadmin's changes since its base (kept as pending, or "
        "composites of a published store) are written back, a row changed on both sides kept "
        "as a conflict. With --pull-only (or MEMADMIN_STORE_WRITES=off) the file is never "
        "written. Safe to re-run; refused with every problem listed, and nothing imported, "
        "when a row cannot be imported as it is."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="the context.db file")
        parser.add_argument(
            "--project", default="", help="sync only this project identity (git:... or dir:...)"
        )
        parser.add_argument(
            "--pack",
            default=DEFAULT_PACK,
            help=f"pack installed in projects first seen in the store (default {DEFAULT_PACK})",
        )
        parser.add_argument(
            "--no-pack", action="store_true", help="install no pack in new projects"
        )
        parser.add_argument("--no-progress", action="store_true", help="print no progress bar")
        parser.add_argument(
            "--incremental",
            action="store_true",
            help="read only the rows changed since the last sync (a store never synced is read "
            "whole); nothing changed prints so and records no run",
        )
        parser.add_argument(
            "--publish-composites",
            action="store_true",
            help="after the sync, publish composites to the store: create its two composite "
            "tables (refused, creating nothing, if tables of those names have another shape) "
            "and write every composite of its projects; later edits are written through",
        )
        parser.add_argument(
            "--pull-only",
            action="store_true",
            help="take the store's rows as they are: push nothing, keep no conflict",
        )

    def handle(self, *args, **options):
        bar = None if options["no_progress"] else ProgressBar(self.stderr)
        self._path = options["path"]
        try:
            run = context_db_sync(
                path=options["path"],
                project=options["project"],
                pack=None if options["no_pack"] else options["pack"],
                progress=bar,
                incremental=options["incremental"],
                record_empty=not options["incremental"],
                pull_only=options["pull_only"],
            )
        except SyncRefused as refused:
            if bar is not None:
                bar.close()
            lines = refused.messages
            for line in lines[:PROBLEMS_SHOWN]:
                self.stderr.write(f"  {line}")
            if len(lines) > PROBLEMS_SHOWN:
                self.stderr.write(f"  ... and {len(lines) - PROBLEMS_SHOWN} more")
            raise CommandError(
                f"sync refused, nothing imported: {len(lines)} problem(s)"
            ) from refused
        if bar is not None:
            bar.close()
        if run is None:
            self.stdout.write(f"{options['path']}: nothing changed since the last sync")
        else:
            self.stdout.write(summary_text(run))
        if options["publish_composites"]:
            self._publish(run)
        if run is None:
            return
        for line in run.warning_lines[:PROBLEMS_SHOWN]:
            self.stdout.write(f"  warning: {line}")

    def _publish(self, run) -> None:
        upstream = (
            run.store
            if run is not None and run.store is not None
            else UpstreamStore.objects.filter(
                path__in=[str(self._path), str(Path(self._path).resolve())]
            ).first()
        )
        if upstream is None:
            raise CommandError("no synced store to publish composites to")
        try:
            created, conflicts = composites_publish(upstream=upstream, actor="system")
        except PublishRefused as refused:
            raise CommandError(" ".join(refused.messages)) from refused
        made = ", ".join(created) if created else "none (they were there)"
        self.stdout.write(f"  composites published to {upstream.path}; tables created: {made}")
        for conflict in conflicts:
            self.stdout.write(f"  store composite {conflict['row']}: {conflict['problem']}")


def summary_text(run) -> str:
    """Return the summary lines of a finished sync run."""
    lines = [
        f"synced {run.path} in {run.duration_ms / 1000:.1f} s: "
        f"{run.new} new, {run.changed} changed, {run.unchanged} unchanged, "
        f"{run.gone} gone, {run.flagged} flagged; {run.sessions} session(s)"
    ]
    lines.append(
        f"  three-way: {run.changed} pulled, {run.pushed} pushed, {run.conflicted} conflicted"
        + ("; resolve conflicts on the Import/export page" if run.conflicted else "")
    )
    for identity in run.projects_created:
        lines.append(f"  new project {identity}")
    for identity, counts in run.by_project.items():
        lines.append(
            f"  {identity}: {counts['new']} new, {counts['changed']} changed, "
            f"{counts['unchanged']} unchanged, {counts['gone']} gone, {counts['flagged']} flagged"
        )
    for identity, categories in run.flagged_categories.items():
        listed = ", ".join(f"{name} ({count})" for name, count in categories.items())
        lines.append(f"  flagged in {identity}: categories outside the pack: {listed}")
    return "\n".join(lines)
