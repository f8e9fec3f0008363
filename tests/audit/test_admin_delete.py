"""Django admin's delete confirmations delete only what they showed.

The single confirmation carries the object's version, the bulk one a digest of every listed
row's; a delete confirmed after someone changed (or deleted) one of them, or sent without its
version, deletes nothing and shows the confirmation again (409).
"""

import pytest

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create, composite_set_title
from memadmin.memories.services import memory_create
from tests.html_tree import attribute, find, find_all

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/composites/composite/"


@pytest.fixture
def composites(project):
    heads = [
        memory_create(project=project, category="OPS_RULES", content=f"Head {n}.", actor="agent")
        for n in range(3)
    ]
    return [composite_create(head=head, type="theme", actor="agent") for head in heads]


def version_in(body: str) -> str:
    (form,) = [
        form
        for form in find_all(body, "form", method="post")
        if find_all(form, name="edited_version")
    ]
    return attribute(find(form, "input", type="hidden", name="edited_version"), "value")


def delete_url(composite) -> str:
    return f"{CHANGELIST}{composite.pk}/delete/"


def test_a_delete_confirmed_as_shown_deletes(client_as, composites):
    """The version the confirmation carries lets the delete through."""
    client = client_as("admin")
    version = version_in(client.get(delete_url(composites[0])).content.decode())
    response = client.post(delete_url(composites[0]), {"post": "yes", "edited_version": version})
    assert response.status_code == 302
    assert not Composite.objects.filter(pk=composites[0].pk).exists()


def test_a_delete_confirmed_after_an_edit_is_refused(client_as, composites):
    """Someone renamed it after the confirmation was opened: 409, it stays, the page says why."""
    client = client_as("admin")
    version = version_in(client.get(delete_url(composites[0])).content.decode())
    composite_set_title(composite=composites[0], title="Renamed meanwhile", actor="agent")
    events = AuditEvent.objects.count()
    response = client.post(delete_url(composites[0]), {"post": "yes", "edited_version": version})
    body = response.content.decode()
    assert response.status_code == 409
    assert Composite.objects.filter(pk=composites[0].pk).exists()
    assert AuditEvent.objects.count() == events
    assert "saved by someone else since this confirmation was shown" in body
    assert "Renamed meanwhile" in body
    # The confirmation shown again carries the version now stored: confirming again deletes.
    client.post(delete_url(composites[0]), {"post": "yes", "edited_version": version_in(body)})
    assert not Composite.objects.filter(pk=composites[0].pk).exists()


def test_a_delete_without_its_version_is_refused(client_as, composites):
    """A confirmation that says nothing of what it confirms deletes nothing."""
    response = client_as("admin").post(delete_url(composites[0]), {"post": "yes"})
    assert response.status_code == 409
    assert "did not say which version" in response.content.decode()
    assert Composite.objects.filter(pk=composites[0].pk).exists()


def bulk(client, composites, **extra):
    return client.post(
        CHANGELIST,
        {"action": "delete_selected", "_selected_action": [c.pk for c in composites], **extra},
    )


def test_a_bulk_delete_confirmed_as_shown_deletes_them_all(client_as, composites):
    """The digest of the listed rows lets the delete through."""
    client = client_as("admin")
    version = version_in(bulk(client, composites[:2]).content.decode())
    response = bulk(client, composites[:2], post="yes", edited_version=version)
    assert response.status_code == 302
    assert list(Composite.objects.values_list("pk", flat=True)) == [composites[2].pk]


@pytest.mark.parametrize("meanwhile", ["renamed", "deleted"])
def test_a_bulk_delete_after_one_row_changed_deletes_none(client_as, composites, meanwhile):
    """One listed row changed or went since the confirmation: nothing is deleted, 409."""
    client = client_as("admin")
    version = version_in(bulk(client, composites).content.decode())
    if meanwhile == "renamed":
        composite_set_title(composite=composites[1], title="Renamed meanwhile", actor="agent")
    else:
        client.post(
            delete_url(composites[1]),
            {
                "post": "yes",
                "edited_version": version_in(
                    client.get(delete_url(composites[1])).content.decode()
                ),
            },
        )
    left = Composite.objects.count()
    response = bulk(client, composites, post="yes", edited_version=version)
    body = response.content.decode()
    assert response.status_code == 409
    assert Composite.objects.count() == left
    assert "changed or deleted by someone else" in body
    # Confirming the page shown again deletes what it lists now.
    bulk(client, composites, post="yes", edited_version=version_in(body))
    assert not Composite.objects.exists()


def test_a_bulk_delete_without_its_version_deletes_none(client_as, composites):
    """The bulk confirmation without its digest is refused like a stale one."""
    response = bulk(client_as("admin"), composites, post="yes")
    assert response.status_code == 409
    assert "did not say which versions" in response.content.decode()
    assert Composite.objects.count() == 3


@pytest.mark.django_db(transaction=True)
def test_the_delete_confirmation_opens_outside_a_test_transaction(client_as, composites):
    """As served (no transaction around the request), the confirmation opens and confirms.

    Django opens a transaction for a POST only; the row lock the confirmation takes needs
    one on PostgreSQL, where a GET without it was a server error.
    """
    client = client_as("admin")
    for composite in composites:
        response = client.get(delete_url(composite))
        assert response.status_code == 200
    version = version_in(client.get(delete_url(composites[0])).content.decode())
    response = client.post(delete_url(composites[0]), {"post": "yes", "edited_version": version})
    assert response.status_code == 302
    assert not Composite.objects.filter(pk=composites[0].pk).exists()
