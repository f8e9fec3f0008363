"""`manage.py facts check FILE --project P [--write]`: account for every line of historian output.

Accepted facts are listed under their category, rejected items with their line and reason.
With `--write` the accepted facts are written as memories by the historian; an exact
duplicate only bumps its seen count. FILE may be `-` for standard input.
"""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memadmin.memories.facts_services import facts_write
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import accepted_by_category, facts_check


class Command(BaseCommand):
    help = "Parse historian output against a project's categories; optionally write the facts."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        check = sub.add_parser("check", help="parse a file of historian output")
        check.add_argument("file", help="the file to read, or - for standard input")
        check.add_argument("--project", required=True, help="the project's identity (git:...)")
        check.add_argument(
            "--write", action="store_true", help="write the accepted facts as memories"
        )

    def handle(self, *args, **options):
        identity = options["project"]
        try:
            project = Project.objects.get(identity=identity)
        except Project.DoesNotExist as missing:
            raise CommandError(f"no project {identity}") from missing
        text = self._read(options["file"])
        report = facts_check(project, text)
        for category, facts in accepted_by_category(report).items():
            self.stdout.write(f"{category} ({len(facts)} accepted)")
            for fact in facts:
                self.stdout.write(f"  line {fact.line}: {fact.content}")
        if report.rejected:
            self.stdout.write(f"Rejected ({len(report.rejected)})")
            for item in report.rejected:
                where = f"line {item.line}" if item.line else "output"
                shown = f" {item.text}" if item.text else ""
                self.stdout.write(f"  {where}: {item.reason}:{shown}")
        self.stdout.write(f"{len(report.accepted)} accepted, {len(report.rejected)} rejected.")
        if options["write"]:
            written = facts_write(project=project, report=report, actor="historian")
            for fact, reason in written.refused:
                self.stdout.write(f"  line {fact.line}: not written: {reason}")
            self.stdout.write(
                f"Written: {len(written.created)} new, {len(written.bumped)} seen again, "
                f"{len(written.refused)} refused."
            )

    def _read(self, name: str) -> str:
        if name == "-":
            return sys.stdin.read()
        try:
            return Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"cannot read {name}: {error}") from error
