"""Every change to a composite made from its page carries the version the page showed.

A change over another version (someone changed the composite since) or without one is
refused with nothing written; the page comes back as the composite is now, keeping what the
person typed.
"""

import pytest
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import (
    CompositeChanged,
    composite_create,
    composite_cursor_advance,
    composite_cursor_back,
    composite_cursor_set,
    composite_fingerprint,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
    composite_set_title,
    composite_set_type,
)
from tests.html_tree import attribute, find, find_all, top

pytestmark = pytest.mark.django_db


@pytest.fixture
def sequence(steps):
    return composite_create(
        head=steps[0], type="sequence", members=steps[1:4], title="Release SOP", actor="agent"
    )


def shown(composite):
    """Return the composite as stored now: its fields, members in order, and events."""
    composite = Composite.objects.get(pk=composite.pk)
    members = list(composite.members.order_by("position").values_list("member_id", flat=True))
    return (composite.type, composite.title, composite.cursor, members, AuditEvent.objects.count())


def changes(steps):
    """Each composite change from its page, as a call given the version it carries."""
    return {
        "add": lambda c, v: composite_member_add(
            composite=c, members=[steps[5]], actor="agent", expected_fingerprint=v
        ),
        "remove": lambda c, v: composite_member_remove(
            composite=c, member=steps[1], actor="agent", expected_fingerprint=v
        ),
        "move": lambda c, v: composite_member_move(
            composite=c, member=steps[3], position=0, actor="agent", expected_fingerprint=v
        ),
        "type": lambda c, v: composite_set_type(
            composite=c, type="theme", actor="agent", expected_fingerprint=v
        ),
        "title": lambda c, v: composite_set_title(
            composite=c, title="Mine", actor="agent", expected_fingerprint=v
        ),
        "advance": lambda c, v: composite_cursor_advance(
            composite=c, actor="agent", expected_fingerprint=v
        ),
        "back": lambda c, v: composite_cursor_back(
            composite=c, actor="agent", expected_fingerprint=v
        ),
        "set": lambda c, v: composite_cursor_set(
            composite=c, position=2, actor="agent", expected_fingerprint=v
        ),
    }


@pytest.mark.parametrize(
    "change", ["add", "remove", "move", "type", "title", "advance", "back", "set"]
)
def test_a_change_over_a_newer_version_is_refused(sequence, steps, change):
    """Someone renamed the composite since the page was opened: nothing is written."""
    seen = composite_fingerprint(sequence)
    composite_set_title(composite=sequence, title="Theirs", actor="agent")
    before = shown(sequence)
    with pytest.raises(CompositeChanged, match="Nothing was changed"):
        changes(steps)[change](sequence, seen)
    assert shown(sequence) == before


@pytest.mark.parametrize(
    "change", ["add", "remove", "move", "type", "title", "advance", "back", "set"]
)
def test_a_change_without_a_version_is_refused(sequence, steps, change):
    """An empty version could be over anything: refused like a stale one."""
    before = shown(sequence)
    with pytest.raises(CompositeChanged, match="did not say which version"):
        changes(steps)[change](sequence, "")
    assert shown(sequence) == before


@pytest.mark.parametrize(
    "change", ["add", "remove", "move", "type", "title", "advance", "back", "set"]
)
def test_a_change_over_the_current_version_is_written(sequence, steps, change):
    """The version the composite has now lets the change through."""
    before = shown(sequence)
    changes(steps)[change](sequence, composite_fingerprint(sequence))
    assert shown(sequence) != before


def test_every_kind_of_edit_moves_the_version(sequence, steps):
    """A member change, a cursor move, a rename and a type change each give a new version."""
    versions = [composite_fingerprint(sequence)]
    for change in ("add", "move", "advance", "title", "type"):
        changes(steps)[change](sequence, None)
        versions.append(composite_fingerprint(Composite.objects.get(pk=sequence.pk)))
    assert len(set(versions)) == len(versions)


def versions_carried(body: str) -> set[str]:
    """The versions the page's forms carry; each form that posts a change carries one."""
    section = find(body, "section", id="composite-section")
    for form in find_all(section, "form", method="post"):
        find(form, "input", type="hidden", name="fingerprint")  # one, in each form
    return {attribute(field, "value") for field in find_all(body, "input", name="fingerprint")}


def page_version(client, composite) -> str:
    body = client.get(reverse("composites:detail", args=[composite.pk])).content.decode()
    versions = versions_carried(body)
    assert len(versions) == 1, "every form of the page carries the one version"
    return versions.pop()


def test_the_page_carries_the_version_in_every_form(client_as, sequence):
    """The version on the page is the composite's, and each action form sends it."""
    client = client_as("editor")
    body = client.get(reverse("composites:detail", args=[sequence.pk])).content.decode()
    assert page_version(client, sequence) == composite_fingerprint(sequence)
    # the cursor three, two up, two down, three removes, then add, type and title
    fields = find_all(body, "input", type="hidden", name="fingerprint")
    assert len(fields) == 3 + 2 + 2 + 3 + 3
    assert not [field for field in fields if "id" in field.attributes]  # one page, many forms


def test_a_stale_rename_without_javascript_keeps_what_was_typed(client_as, sequence):
    """409, the title stays the other person's, and the page shows the refusal and the text."""
    client = client_as("editor")
    seen = page_version(client, sequence)
    composite_set_title(composite=sequence, title="Theirs", actor="agent")
    response = client.post(
        reverse("composites:title", args=[sequence.pk]),
        {"title": "My careful title", "fingerprint": seen},
    )
    body = response.content.decode()
    assert response.status_code == 409
    assert Composite.objects.get(pk=sequence.pk).title == "Theirs"
    assert "Someone else changed this composite" in body
    retitle = find(
        body, "form", method="post", action=reverse("composites:title", args=[sequence.pk])
    )
    assert attribute(find(retitle, "input", name="title"), "value") == "My careful title"
    # The page now carries the new version: saving again is a deliberate choice, and works.
    fresh = page_version(client, sequence)
    assert versions_carried(body) == {fresh} and fresh != seen
    client.post(
        reverse("composites:title", args=[sequence.pk]),
        {"title": "My careful title", "fingerprint": fresh},
    )
    assert Composite.objects.get(pk=sequence.pk).title == "My careful title"


def test_a_stale_add_with_htmx_answers_the_section_with_the_ids_kept(client_as, sequence, steps):
    """The section comes back (htmx swaps only a success) with the refusal and the typed ids."""
    client = client_as("editor")
    seen = page_version(client, sequence)
    composite_member_remove(composite=sequence, member=steps[2], actor="agent")
    typed = f"{steps[4].display_id}, {steps[5].display_id}"
    response = client.post(
        reverse("composites:member_add", args=[sequence.pk]),
        {"members": typed, "fingerprint": seen},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert [(e.name, attribute(e, "id")) for e in top(body)] == [("section", "composite-section")]
    assert "<html" not in body
    assert "Someone else changed this composite" in body
    adding = find(
        body, "form", method="post", action=reverse("composites:member_add", args=[sequence.pk])
    )
    assert attribute(find(adding, "input", name="members"), "value") == typed
    assert steps[4].pk not in shown(sequence)[3]


@pytest.mark.parametrize("action", ["advance", "back"])
def test_two_people_moving_the_cursor_do_not_both_move_it(client_as, sequence, action):
    """The second press, made on the page as it was, is refused: the cursor moved once."""
    first, second = client_as("editor"), client_as("admin")
    seen = page_version(first, sequence)
    url = reverse("composites:cursor", args=[sequence.pk])
    assert first.post(url, {"action": action, "fingerprint": seen}).status_code == 302
    assert second.post(url, {"action": action, "fingerprint": seen}).status_code == 409
    assert Composite.objects.get(pk=sequence.pk).cursor == (1 if action == "advance" else 2)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("member_add", {}),
        ("type", {"type": "theme"}),
        ("title", {"title": "x"}),
        ("cursor", {"action": "advance"}),
    ],
)
def test_a_post_without_its_version_changes_nothing(client_as, sequence, steps, name, data):
    """A form that sends no version is refused, 409, like a stale one."""
    if name == "member_add":
        data = {"members": str(steps[5].display_id)}
    before = shown(sequence)
    response = client_as("editor").post(reverse(f"composites:{name}", args=[sequence.pk]), data)
    assert response.status_code == 409
    assert "did not say which version" in response.content.decode()
    assert shown(sequence) == before


def test_member_remove_and_move_without_a_version_change_nothing(client_as, sequence, steps):
    """The per-member buttons carry the version too."""
    client = client_as("editor")
    before = shown(sequence)
    remove = reverse("composites:member_remove", args=[sequence.pk, steps[1].pk])
    move = reverse("composites:member_move", args=[sequence.pk, steps[3].pk])
    assert client.post(remove).status_code == 409
    assert client.post(move, {"position": 1}).status_code == 409
    assert shown(sequence) == before
