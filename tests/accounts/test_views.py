"""The people page: admins only; adding people and changing roles over HTTP."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from pytest_django.asserts import assertContains

from memadmin.accounts.roles import role_of
from memadmin.audit.models import AuditEvent
from tests.html_tree import field_error

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("role", ["viewer", "editor", "curator"])
def test_only_admins_see_the_people_page(client_as, role):
    """Below admin, the page is forbidden."""
    assert client_as(role).get(reverse("accounts:people")).status_code == 403


def test_admin_sees_everyone_with_their_role(client_as):
    """Each person is listed with the role they hold."""
    response = client_as("admin").get(reverse("accounts:people"))
    listed = {person.username: person.role for person in response.context["people"]}
    assert listed == {
        "viewer": "viewer",
        "editor": "editor",
        "curator": "curator",
        "admin": "admin",
    }


def test_each_row_has_a_role_select_with_the_persons_role_chosen(client_as, people):
    """The row's select, rendered from the role form, names the roles and holds theirs."""
    response = client_as("admin").get(reverse("accounts:people"))
    editor = people["editor"].pk
    options = "".join(
        f'<option value="{role}"{" selected" if role == "editor" else ""}>{role}</option>'
        for role in ("viewer", "editor", "curator", "admin")
    )
    assertContains(
        response, f'<select name="role" id="role-{editor}">{options}</select>', html=True
    )
    assertContains(response, f'<label for="role-{editor}">Role of editor</label>', html=True)
    assertContains(
        response,
        f'<input type="text" name="reason" maxlength="500" id="role-reason-{editor}">',
        html=True,
    )


def test_admin_adds_a_person(client_as):
    """The add form creates a person with the chosen role and says so."""
    response = client_as("admin").post(
        reverse("accounts:create"),
        {"username": "dana", "role": "editor", "password": "a long enough secret"},
        follow=True,
    )
    assert "dana can now sign in as editor" in response.content.decode()
    assert role_of(get_user_model().objects.get(username="dana")) == "editor"


def test_a_weak_password_is_refused_on_the_page(client_as):
    """The password rules are the service's; the page shows them and creates nobody."""
    response = client_as("admin").post(
        reverse("accounts:create"), {"username": "dana", "role": "editor", "password": "123"}
    )
    assert response.status_code == 400
    assert field_error(response.content.decode(), "id_password")
    assert not get_user_model().objects.filter(username="dana").exists()


def test_admin_changes_a_role(client_as, people):
    """A role change takes effect and is recorded with its reason."""
    response = client_as("admin").post(
        reverse("accounts:role", args=[people["viewer"].pk]),
        {"role": "editor", "reason": "joins the team"},
    )
    assert response.status_code == 302
    assert role_of(get_user_model().objects.get(pk=people["viewer"].pk)) == "editor"
    assert AuditEvent.objects.get(action="role_changed").reason == "joins the team"


def test_the_last_admin_is_refused_on_the_page(client_as, people):
    """Demoting the only admin is refused with 400 and the reason beside that person."""
    response = client_as("admin").post(
        reverse("accounts:role", args=[people["admin"].pk]), {"role": "viewer"}
    )
    assert response.status_code == 400
    assert "is the last admin" in response.content.decode()


def test_a_viewer_cannot_change_roles(client_as, people):
    """A viewer posting a role change gets 403, and nothing is written."""
    before = AuditEvent.objects.count()
    response = client_as("viewer").post(
        reverse("accounts:role", args=[people["viewer"].pk]), {"role": "admin"}
    )
    assert response.status_code == 403
    assert role_of(people["viewer"]) == "viewer"
    assert AuditEvent.objects.count() == before


def test_an_unknown_role_is_a_bad_request(client_as, people):
    """A role outside the four is refused with 400."""
    response = client_as("admin").post(
        reverse("accounts:role", args=[people["viewer"].pk]), {"role": "owner"}
    )
    assert response.status_code == 400


def test_logging_in_lands_on_the_overview(client, people):
    """After the login form, a person sees the overview, not a list."""
    from tests.conftest import PASSWORD

    response = client.post("/login/", {"username": "viewer", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("home") == "/"
    assert client.get(response["Location"]).status_code == 200
