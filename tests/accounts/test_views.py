"""The people page: admins only; adding people and changing roles over HTTP."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from pytest_django.asserts import assertContains

from memadmin.accounts.roles import role_of
from memadmin.accounts.services import person_set_role
from memadmin.audit.models import AuditEvent
from tests.html_tree import attribute, field_error, find_all

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
        {"role": "editor", "reason": "joins the team", "shown_role": "viewer"},
    )
    assert response.status_code == 302
    assert role_of(get_user_model().objects.get(pk=people["viewer"].pk)) == "editor"
    assert AuditEvent.objects.get(action="role_changed").reason == "joins the team"


def test_the_last_admin_is_refused_on_the_page(client_as, people):
    """Demoting the only admin is refused with 400 and the reason beside that person."""
    response = client_as("admin").post(
        reverse("accounts:role", args=[people["admin"].pk]),
        {"role": "viewer", "shown_role": "admin"},
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


def role_form_of(page: str, person) -> dict:
    """Return the fields of the person's role form, as a browser would post them."""
    action = reverse("accounts:role", args=[person.pk])
    (form,) = [f for f in find_all(page, "form", method="post") if attribute(f, "action") == action]
    fields = {
        attribute(field, "name"): attribute(field, "value")
        for field in find_all(form, "input", type="hidden")
    }
    fields.pop("csrfmiddlewaretoken", None)
    return fields


def test_a_role_change_over_a_newer_one_is_refused(client_as, people):
    """The page was loaded, then another admin promoted the person: making them viewer from
    the older page is refused (409), the newer role stays, and the page says what it is now."""
    client = client_as("admin")
    editor = people["editor"]
    shown = role_form_of(client.get(reverse("accounts:people")).content.decode(), editor)
    assert shown == {"shown_role": "editor"}
    person_set_role(user=editor, role="curator", actor=people["admin"], reason="promoted")
    before = AuditEvent.objects.count()
    response = client.post(reverse("accounts:role", args=[editor.pk]), {**shown, "role": "viewer"})
    assert response.status_code == 409
    assert "it is now curator" in response.content.decode()
    assert role_of(get_user_model().objects.get(pk=editor.pk)) == "curator"
    assert AuditEvent.objects.count() == before
    # The page shown again carries the role now held: choosing again goes through.
    again = role_form_of(response.content.decode(), editor)
    assert again == {"shown_role": "curator"}
    response = client.post(reverse("accounts:role", args=[editor.pk]), {**again, "role": "viewer"})
    assert response.status_code == 302
    assert role_of(get_user_model().objects.get(pk=editor.pk)) == "viewer"


def test_a_role_change_that_says_no_role_shown_is_refused(client_as, people):
    """A change that does not say which role it replaces is refused like a stale one."""
    before = AuditEvent.objects.count()
    response = client_as("admin").post(
        reverse("accounts:role", args=[people["viewer"].pk]), {"role": "admin"}
    )
    assert response.status_code == 409
    assert "did not say which role" in response.content.decode()
    assert role_of(get_user_model().objects.get(pk=people["viewer"].pk)) == "viewer"
    assert AuditEvent.objects.count() == before


def test_a_person_with_no_role_shows_none_and_can_be_given_one(client_as, people):
    """Someone with no role: the form says so, and a role can be given over it."""
    nobody = get_user_model().objects.create_user("nobody", password="x-long-password")
    client = client_as("admin")
    shown = role_form_of(client.get(reverse("accounts:people")).content.decode(), nobody)
    assert shown == {"shown_role": "none"}
    response = client.post(reverse("accounts:role", args=[nobody.pk]), {**shown, "role": "editor"})
    assert response.status_code == 302
    assert role_of(get_user_model().objects.get(pk=nobody.pk)) == "editor"
