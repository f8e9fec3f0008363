"""`manage.py pack list`, `pack install NAME --project P` and `pack upgrade NAME --project P`.

`pack upgrade` prints the plan and changes nothing unless given `--apply`; a plan with
refusals is never applied. `--map OLD=NEW` (repeatable) says where the memories of a
removed category go.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memadmin.core.packs import PackError, PackNotFoundError, pack_files
from memadmin.memories.pack_upgrade_services import UpgradeRefused, pack_upgrade, pack_upgrade_plan
from memadmin.projects.models import Project
from memadmin.taxonomy.services import pack_install, pack_load
from memadmin.taxonomy.upgrades import NOTHING, format_plan, parse_mapping


class Command(BaseCommand):
    help = "List the packs in packs/, or install one into a project."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("list", help="list the pack files and their categories")
        install = sub.add_parser("install", help="install a pack into a project")
        install.add_argument("name")
        install.add_argument("--project", required=True, help="the project's identity (git:...)")
        upgrade = sub.add_parser("upgrade", help="plan, then apply, a pack upgrade")
        upgrade.add_argument("name")
        upgrade.add_argument("--project", required=True, help="the project's identity (git:...)")
        upgrade.add_argument(
            "--map",
            action="append",
            default=[],
            metavar="OLD=NEW",
            help="move the memories of removed category OLD to NEW (repeatable)",
        )
        upgrade.add_argument(
            "--apply", action="store_true", help="apply the plan (without it, only print it)"
        )

    def handle(self, *args, **options):
        try:
            if options["action"] == "list":
                self._list()
            elif options["action"] == "install":
                self._install(options["name"], options["project"])
            else:
                self._upgrade(options["name"], options["project"], options["map"], options["apply"])
        except UpgradeRefused as refused:
            raise CommandError("upgrade refused; nothing changed") from refused
        except (PackError, PackNotFoundError, ValidationError) as error:
            message = "; ".join(error.messages) if isinstance(error, ValidationError) else error
            raise CommandError(str(message)) from error

    def _list(self):
        """List every pack that loads; name each broken file on standard error, skipped."""
        for file in pack_files(settings.PACKS_DIR):
            spec = file.spec
            if spec is None:
                self.stderr.write(f"skipped, broken: {file.error}")
                continue
            writable = ", ".join(spec.writable_names())
            legacy = [c.name for c in spec.categories if c.legacy]
            self.stdout.write(f"{spec.name} {spec.version}: {writable}")
            if legacy:
                self.stdout.write(f"    legacy: {', '.join(legacy)}")

    def _project(self, identity: str) -> Project:
        try:
            return Project.objects.select_related("pack").get(identity=identity)
        except Project.DoesNotExist as missing:
            raise CommandError(f"no project {identity}") from missing

    def _install(self, name: str, identity: str):
        project = self._project(identity)
        spec = pack_load(name)
        pack = pack_install(project=project, spec=spec, actor="system")
        self.stdout.write(f"{project.identity} runs {pack.name} {pack.version}")

    def _upgrade(self, name: str, identity: str, pairs: list[str], apply: bool):
        try:
            mapping = parse_mapping(pairs)
        except ValueError as error:
            raise CommandError(str(error)) from error
        project = self._project(identity)
        spec = pack_load(name)
        plan = pack_upgrade_plan(project=project, spec=spec, mapping=mapping)
        self.stdout.write(format_plan(plan), ending="")
        if not plan.allowed:
            raise CommandError("upgrade refused; nothing changed")
        if plan.kind == NOTHING:
            return
        if not apply:
            self.stdout.write("Nothing changed: run again with --apply to apply this plan.")
            return
        pack_upgrade(project=project, spec=spec, mapping=mapping, actor="system")
        self.stdout.write(f"{project.identity} runs {spec.name} {spec.version}")
