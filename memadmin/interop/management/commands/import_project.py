"""`manage.py import_project FILE`: import a project export as a new project."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memadmin.interop.transfer.import_services import ImportRefused, project_import

PROBLEMS_SHOWN = 50


class Command(BaseCommand):
    help = (
        "Import a project export (format memadmin.project version 1) as a new project. "
        "The whole document is checked first; any problem refuses it and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the export to read ('-' for standard input)")

    def handle(self, *args, **options):
        if options["file"] == "-":
            raw = sys.stdin.buffer.read()
        else:
            try:
                raw = Path(options["file"]).read_bytes()
            except OSError as error:
                raise CommandError(f"{options['file']}: {error.strerror}") from error
        try:
            project = project_import(raw=raw)
        except ImportRefused as refused:
            for line in refused.messages[:PROBLEMS_SHOWN]:
                self.stderr.write(f"  {line}")
            if len(refused.messages) > PROBLEMS_SHOWN:
                self.stderr.write(f"  ... and {len(refused.messages) - PROBLEMS_SHOWN} more")
            raise CommandError(
                f"import refused, nothing written: {len(refused.messages)} problem(s)"
            ) from refused
        count = project.memories.count()
        self.stdout.write(f"imported {project.identity} ({project.name}): {count} memories")
