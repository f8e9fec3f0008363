"""`manage.py person`: add people with a role, change a role, list them."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from memadmin.accounts.roles import role_of
from memadmin.audit.models import AuditEvent

pytestmark = pytest.mark.django_db


def test_add_creates_a_person_with_a_printed_password(capsys):
    """Without --password a random one is made and printed once."""
    call_command("person", "add", "dana", "--role", "curator")
    out = capsys.readouterr().out
    assert out.startswith("created dana (curator), password: ")
    dana = get_user_model().objects.get(username="dana")
    assert dana.check_password(out.rsplit(" ", 1)[-1].strip())
    assert role_of(dana) == "curator"
    assert AuditEvent.objects.get(action="person_created").actor_label == "system"


def test_add_refuses_a_taken_name():
    """A second person of the same name is a command error."""
    call_command("person", "add", "dana", "--role", "viewer")
    with pytest.raises(CommandError, match="already exists"):
        call_command("person", "add", "dana", "--role", "viewer")


def test_role_changes_a_role_and_list_shows_it(capsys):
    """`person role` gives another role; `person list` shows it."""
    call_command("person", "add", "dana", "--role", "viewer")
    call_command("person", "role", "dana", "editor", "--reason", "joined")
    call_command("person", "list")
    assert "dana\teditor" in capsys.readouterr().out
    assert AuditEvent.objects.get(action="role_changed").reason == "joined"


def test_role_of_nobody_is_an_error():
    """Changing the role of an unknown person is a command error."""
    with pytest.raises(CommandError, match="no person named"):
        call_command("person", "role", "ghost", "editor")
