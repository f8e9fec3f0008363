"""`manage.py export_criteria PATH --project P`: write criteria into a magic-context store."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memadmin.interop.write_through.criteria_services import criteria_export, default_backup_dir
from memadmin.memories.selectors import project_by_identity
from memadmin.projects.models import Project


class Command(BaseCommand):
    help = (
        "Write a project's effective criteria and prompt-surface hash into a store's "
        "context_store_meta (keys memadmin.criteria.v1.* and memadmin.surface_hash.v1.*), "
        "after a backup copy, in one transaction; no other table is touched."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="the context.db file")
        parser.add_argument("--project", required=True, help="the project identity (git:...)")
        parser.add_argument(
            "--backup-dir",
            default=None,
            help=f"where the backup copy goes (default {default_backup_dir()})",
        )

    def handle(self, *args, **options):
        try:
            project = project_by_identity(options["project"])
        except Project.DoesNotExist as missing:
            raise CommandError(f"no project {options['project']} in memadmin") from missing
        try:
            export = criteria_export(
                path=options["path"], project=project, backup_dir=options["backup_dir"]
            )
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from error
        self.stdout.write(f"backup copy: {export.backup_path}")
        self.stdout.write(
            f"wrote {len(export.keys)} key(s) into {options['path']}: surface hash "
            f"{export.surface_hash}"
        )
        for key in export.keys:
            self.stdout.write(f"  {key}")
