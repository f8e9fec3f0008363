"""`manage.py export_project --project P [--output FILE]`: write a project as JSON."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memadmin.interop.transfer.export import project_export
from memadmin.memories.selectors import project_by_identity
from memadmin.projects.models import Project


class Command(BaseCommand):
    help = (
        "Export a project (memories, composites and members, criteria overrides, reference "
        "sets) as one JSON document, format memadmin.project version 1."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="the project identity (git:...)")
        parser.add_argument(
            "--output", default="-", help="the file to write (default: standard output)"
        )

    def handle(self, *args, **options):
        try:
            project = project_by_identity(options["project"])
        except Project.DoesNotExist as missing:
            raise CommandError(f"no project {options['project']} in memadmin") from missing
        document = project_export(project)
        if options["output"] == "-":
            sys.stdout.buffer.write(document)
            sys.stdout.flush()
            return
        Path(options["output"]).write_bytes(document)
        self.stderr.write(f"exported {project.identity} to {options['output']}")
