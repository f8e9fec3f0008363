"""`manage.py pack list` and `manage.py pack install NAME --project P`."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memadmin.core.packs import PackError, PackNotFoundError, list_packs
from memadmin.memories.models import Project
from memadmin.taxonomy.services import pack_install, pack_load


class Command(BaseCommand):
    help = "List the packs in packs/, or install one into a project."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("list", help="list the pack files and their categories")
        install = sub.add_parser("install", help="install a pack into a project")
        install.add_argument("name")
        install.add_argument("--project", required=True, help="the project's identity (git:...)")

    def handle(self, *args, **options):
        try:
            if options["action"] == "list":
                self._list()
            else:
                self._install(options["name"], options["project"])
        except (PackError, PackNotFoundError, ValidationError) as error:
            message = "; ".join(error.messages) if isinstance(error, ValidationError) else error
            raise CommandError(str(message)) from error

    def _list(self):
        for spec in list_packs(settings.PACKS_DIR):
            writable = ", ".join(spec.writable_names())
            legacy = [c.name for c in spec.categories if c.legacy]
            self.stdout.write(f"{spec.name} {spec.version}: {writable}")
            if legacy:
                self.stdout.write(f"    legacy: {', '.join(legacy)}")

    def _install(self, name: str, identity: str):
        try:
            project = Project.objects.get(identity=identity)
        except Project.DoesNotExist as missing:
            raise CommandError(f"no project {identity}") from missing
        spec = pack_load(name)
        pack = pack_install(project=project, spec=spec, actor="system")
        self.stdout.write(f"{project.identity} runs {pack.name} {pack.version}")
