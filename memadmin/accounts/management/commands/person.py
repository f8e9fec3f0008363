"""`manage.py person add NAME --role ROLE [--password P]`: create a person with a role."""

import secrets

from django.core.management.base import BaseCommand, CommandError

from memadmin.accounts.roles import ROLES
from memadmin.accounts.services import person_create


class Command(BaseCommand):
    help = "Create a person with a role (viewer, editor, curator, admin)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="create a person")
        add.add_argument("username")
        add.add_argument("--role", choices=ROLES, required=True)
        add.add_argument("--password", help="default: a random one, printed once")
        add.add_argument("--email", default="")

    def handle(self, *args, **options):
        password = options["password"] or secrets.token_urlsafe(12)
        try:
            person_create(
                username=options["username"],
                password=password,
                role=options["role"],
                email=options["email"],
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            f"created {options['username']} ({options['role']}), password: {password}"
        )
