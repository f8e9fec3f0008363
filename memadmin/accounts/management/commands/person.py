"""`manage.py person add NAME --role ROLE [--password P]` and `manage.py person role NAME ROLE`."""

import secrets

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memadmin.accounts.roles import ROLES, role_of
from memadmin.accounts.services import person_create, person_set_role


class Command(BaseCommand):
    help = "Create a person with a role (viewer, editor, curator, admin), or change a role."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="create a person")
        add.add_argument("username")
        add.add_argument("--role", choices=ROLES, required=True)
        add.add_argument("--password", help="default: a random one, printed once")
        add.add_argument("--email", default="")
        role = sub.add_parser("role", help="give a person another role")
        role.add_argument("username")
        role.add_argument("role", choices=ROLES)
        role.add_argument("--reason", default="")
        sub.add_parser("list", help="list people and their roles")

    def handle(self, *args, **options):
        try:
            getattr(self, f"_{options['action']}")(options)
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from error

    def _add(self, options) -> None:
        password = options["password"] or secrets.token_urlsafe(12)
        person_create(
            username=options["username"],
            password=password,
            role=options["role"],
            email=options["email"],
            actor="system",
        )
        self.stdout.write(
            f"created {options['username']} ({options['role']}), password: {password}"
        )

    def _role(self, options) -> None:
        try:
            user = get_user_model().objects.get(username=options["username"])
        except get_user_model().DoesNotExist as missing:
            raise CommandError(f"no person named {options['username']!r}") from missing
        person_set_role(user=user, role=options["role"], actor="system", reason=options["reason"])
        self.stdout.write(f"{user.get_username()} is now {options['role']}")

    def _list(self, options) -> None:
        for user in get_user_model().objects.order_by("username"):
            state = "" if user.is_active else " (inactive)"
            self.stdout.write(f"{user.get_username()}\t{role_of(user) or 'no role'}{state}")
