"""People and roles: one role each, strong passwords, the last admin kept, every change audited."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.accounts.roles import has_role, role_of
from memadmin.accounts.services import person_create, person_set_role
from memadmin.audit.models import AuditEvent

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough secret"


def test_a_new_person_has_exactly_one_role_and_is_audited(people):
    """Creating a person records who did it and with what role."""
    dana = person_create(username="dana", password=PASSWORD, role="editor", actor=people["admin"])
    assert role_of(dana) == "editor"
    assert has_role(dana, "viewer") and not has_role(dana, "curator")
    event = AuditEvent.objects.get(action="person_created", object_id=str(dana.pk))
    assert (event.actor_label, event.object_type, event.changes) == (
        "admin",
        "person",
        {"role": "editor"},
    )


def test_an_admin_is_a_superuser_and_staff(db):
    """The admin role opens Django's admin; the others do not."""
    boss = person_create(username="boss", password=PASSWORD, role="admin")
    plain = person_create(username="plain", password=PASSWORD, role="curator")
    assert (boss.is_staff, boss.is_superuser) == (True, True)
    assert (plain.is_staff, plain.is_superuser) == (False, False)


def test_a_person_made_without_a_password_cannot_log_in(db, client):
    """No password: nobody can log in as them, not even with an empty one."""
    author = person_create(username="author", password=None, role="editor")
    assert not author.has_usable_password()
    assert not client.login(username="author", password="")
    assert role_of(author) == "editor"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"username": "x", "password": PASSWORD, "role": "owner"}, "role"),
        ({"username": "  ", "password": PASSWORD, "role": "viewer"}, "username"),
        ({"username": "x", "password": "12345678", "role": "viewer"}, "password"),
        ({"username": "x", "password": "short", "role": "viewer"}, "password"),
    ],
)
def test_bad_people_are_refused_by_field(db, fields, field):
    """An unknown role, an empty name or a weak password is refused, naming the field."""
    with pytest.raises(ValidationError) as refused:
        person_create(**fields)
    assert field in refused.value.message_dict
    assert not AuditEvent.objects.exists()


def test_a_taken_name_is_refused(people):
    """Two people cannot share a username."""
    with pytest.raises(ValidationError) as refused:
        person_create(username="editor", password=PASSWORD, role="viewer")
    assert "already exists" in refused.value.message_dict["username"][0]


def test_changing_a_role_replaces_the_old_one(people):
    """A person holds one role at a time; the change is audited with its reason."""
    person_set_role(user=people["viewer"], role="curator", actor=people["admin"], reason="lead")
    assert role_of(people["viewer"]) == "curator"
    assert list(people["viewer"].groups.values_list("name", flat=True)) == ["curator"]
    event = AuditEvent.objects.get(action="role_changed")
    assert (event.changes, event.reason) == ({"role": ["viewer", "curator"]}, "lead")


def test_the_same_role_changes_nothing(people):
    """Setting the role a person already holds records nothing."""
    person_set_role(user=people["editor"], role="editor", actor=people["admin"])
    assert not AuditEvent.objects.filter(action="role_changed").exists()


def test_the_last_admin_cannot_lose_the_role(people):
    """Someone must be able to manage people: the last admin stays admin."""
    with pytest.raises(ValidationError) as refused:
        person_set_role(user=people["admin"], role="viewer", actor=people["admin"])
    assert "last admin" in refused.value.message_dict["role"][0]
    assert role_of(people["admin"]) == "admin"


def test_an_admin_may_step_down_when_another_remains(people):
    """With a second admin, the first can become a curator."""
    person_set_role(user=people["curator"], role="admin", actor=people["admin"])
    person_set_role(user=people["admin"], role="curator", actor=people["curator"])
    people["admin"].refresh_from_db()
    assert role_of(people["admin"]) == "curator"
    assert not people["admin"].is_superuser
