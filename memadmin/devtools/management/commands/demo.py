"""`manage.py demo`: build the seeded demo store and the demo people (idempotent)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from memadmin.accounts.roles import ROLES
from memadmin.accounts.services import person_create
from memadmin.devtools.demo.builder import demo_build

DEMO_PASSWORD = "memadmin-demo"


class Command(BaseCommand):
    help = "Build the demo store (two projects) and one demo person per role; safe to re-run."

    def add_arguments(self, parser):
        parser.add_argument("--no-people", action="store_true", help="do not create demo people")

    def handle(self, *args, **options):
        summary = demo_build()
        if summary.created:
            self.stdout.write(
                f"demo store built: {summary.projects} projects, {summary.memories} memories, "
                f"{summary.composites} composites"
            )
            for effect in summary.effects:
                self.stdout.write(
                    f"  structured by the structure assistant: at {effect.budget} tokens "
                    f"{effect.before_share:.0%} of Ops platform's live memories reached in pack "
                    f"mode before, {effect.after_share:.0%} in headers mode after"
                )
        else:
            self.stdout.write("demo store already present: nothing changed")
        if options["no_people"]:
            return
        users = get_user_model().objects
        for role in ROLES:
            if not users.filter(username=role).exists():
                person_create(username=role, password=DEMO_PASSWORD, role=role)
        self.stdout.write(f"demo people: {', '.join(ROLES)} (each with password {DEMO_PASSWORD!r})")
