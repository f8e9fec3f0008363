"""Undo from the message that reported a change: it reverts through the audit trail."""

import pytest
from django.urls import reverse

from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create, composite_fingerprint
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import criteria_override_save
from tests.html_tree import attribute, find, find_all, submitted, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(project):
    return [
        memory_create(project=project, category="OPS_RULES", content=f"Rule {n}.", actor="agent")
        for n in range(3)
    ]


def undo_url(html: str) -> str:
    """Return the address of the Undo form in the page's messages."""
    forms = find_all(html, "form", class_="undo-form", method="post")
    assert forms, "the message carries no Undo"
    (form,) = forms
    return attribute(form, "action")


def carried(review: str) -> str:
    """The fingerprint of the rows the bulk review showed, as its confirmation form carries it."""
    form = find(review, "form", method="post", action="/memories/bulk/")
    return attribute(find(form, "input", type="hidden", name="fingerprint"), "value")


def bulk_archive(client, memories) -> str:
    """Archive through the review and its confirmation; return the page shown after."""
    ids = [m.pk for m in memories]
    review = client.post("/memories/bulk/", {"ids": ids, "action": "archive"}).content.decode()
    data = {"ids": ids, "action": "archive", "expected": len(ids), "fingerprint": carried(review)}
    return client.post("/memories/bulk/", {**data, "confirm": "1"}, follow=True).content.decode()


def test_undo_after_a_bulk_archive_restores_the_rows(client_as, rows):
    """The message after a bulk archive has an Undo; it makes the rows active again, once."""
    client = client_as("editor")
    page = bulk_archive(client, rows[:2])
    assert "Archived 2 memories." in page
    url = undo_url(page)
    after = client.post(url, {"next": "/memories/"}, follow=True).content.decode()
    assert "Undone: 2 memories restored." in after
    assert set(Memory.objects.values_list("status", flat=True)) == {"active"}
    again = client.post(url, follow=True).content.decode()
    assert "This change was undone already." in again


def test_undo_is_refused_when_a_row_changed_since(client_as, rows):
    """A newer write is never overwritten: the undo is refused whole."""
    client = client_as("editor")
    url = undo_url(bulk_archive(client, rows[:2]))
    memory_update(memory=Memory.objects.get(pk=rows[0].pk), importance=90, actor="agent")
    page = client.post(url, follow=True).content.decode()
    assert "was changed again after this change" in page
    assert set(
        Memory.objects.filter(pk__in=[rows[0].pk, rows[1].pk]).values_list("status", flat=True)
    ) == {"archived"}


def test_undo_after_an_edit_brings_the_old_text_back(client_as, rows):
    """Saving an edit offers Undo; it restores the text before the edit."""
    client = client_as("editor")
    memory = rows[0]
    page = client.post(
        f"/memories/{memory.pk}/edit/",
        {
            "content": "Rule 0, rewritten.",
            "category": "OPS_RULES",
            "importance": 50,
            "scope": "project",
            "status": "active",
            "expected_updated_at": memory.updated_at,
        },
        follow=True,
    ).content.decode()
    client.post(undo_url(page))
    assert Memory.objects.get(pk=memory.pk).content == "Rule 0."


def test_undo_after_deleting_a_composite_makes_it_again(client_as, rows):
    """The composite comes back with its head, members in order, type and title."""
    composite = composite_create(
        head=rows[0], type="sequence", members=[rows[2], rows[1]], title="Runbook", actor="agent"
    )
    client = client_as("editor")
    page = client.post(
        f"/composites/{composite.pk}/delete/",
        {"fingerprint": composite_fingerprint(composite)},
        follow=True,
    ).content.decode()
    assert not Composite.objects.exists()
    client.post(undo_url(page))
    again = Composite.objects.get()
    assert (again.head, again.type, again.title) == (rows[0], "sequence", "Runbook")
    assert [m.member for m in again.members.order_by("position")] == [rows[2], rows[1]]


def bulk_add(client, memories, composite) -> str:
    """Add to a composite through the review and its confirmation; return the page after."""
    ids = [m.pk for m in memories]
    data = {"ids": ids, "action": "add", "composite": str(composite.pk)}
    review = client.post("/memories/bulk/", data).content.decode()
    data |= {"expected": len(ids), "fingerprint": carried(review), "confirm": "1"}
    return client.post("/memories/bulk/", data, follow=True).content.decode()


def test_undo_after_adding_to_a_composite_takes_the_memories_out(client_as, project, rows):
    """The message after a bulk add has an Undo; it leaves the members as they were, once."""
    composite = composite_create(
        head=rows[0], type="sequence", members=[rows[1]], title="Runbook", actor="agent"
    )
    extra = memory_create(project=project, category="OPS_RULES", content="Rule 3.", actor="agent")
    client = client_as("editor")
    page = bulk_add(client, [rows[2], extra], composite)
    assert "Added 2 memories." in page
    assert composite.members.count() == 3
    after = client.post(undo_url(page), follow=True).content.decode()
    assert "Undone: 2 members taken out of “Runbook”." in after
    assert [m.member for m in composite.members.order_by("position")] == [rows[1]]
    assert Memory.objects.filter(pk__in=[rows[2].pk, extra.pk]).count() == 2  # kept
    assert "This change was undone already." in (
        client.post(undo_url(page), follow=True).content.decode()
    )


def test_undo_of_an_add_is_refused_once_the_members_changed(client_as, rows):
    """A later change of the composite's members is never overwritten: nothing is taken out."""
    from memadmin.composites.services import composite_member_move

    composite = composite_create(head=rows[0], type="sequence", members=[rows[1]], actor="agent")
    client = client_as("editor")
    page = bulk_add(client, [rows[2]], composite)
    composite_member_move(composite=composite, member=rows[2], position=0, actor="agent")
    refused = client.post(undo_url(page), follow=True).content.decode()
    assert "changed after this change" in refused
    assert [m.member for m in composite.members.order_by("position")] == [rows[2], rows[1]]


def test_clear_override_asks_first_and_can_be_undone(client_as, project):
    """The page shows what a clear loses; after it, Undo puts the override back."""
    category = category_by_name(project, "RESEARCH")
    criteria = {**category.effective_criteria, "definition": "Our own definition."}
    criteria_override_save(category=category, criteria=criteria, actor="agent")
    category = category_by_name(project, "RESEARCH")
    client = client_as("curator")
    page = client.get(reverse("taxonomy:category", args=[project.pk, "RESEARCH"])).content.decode()
    confirm = find(page, "details", class_="clear-confirm")
    assert "These edits will be lost" in text(confirm)
    (lost,) = find_all(find(confirm, "ul", class_="clear-losses"), "li")
    assert text(find(lost, "strong")) == "Definition"
    assert any("own" in text(added) for added in find_all(lost, "ins"))
    cleared = client.post(
        reverse("taxonomy:clear", args=[project.pk, "RESEARCH"]),
        {"revision": category.revision},
        follow=True,
    ).content.decode()
    assert not category_by_name(project, "RESEARCH").is_overridden
    client.post(undo_url(cleared))
    assert category_by_name(project, "RESEARCH").effective_criteria["definition"] == (
        "Our own definition."
    )


def test_an_archived_memory_offers_restore(client_as, rows):
    """An archived memory's page has a Restore button leading to the one-row review."""
    client = client_as("editor")
    bulk_archive(client, rows[:1])
    page = client.get(f"/memories/{rows[0].pk}/").content.decode()
    assert "Restore…" in page
    review = client.post(
        "/memories/bulk/", {"ids": [rows[0].pk], "action": "restore"}
    ).content.decode()
    assert "1 row will change" in review


def test_the_undo_form_sends_this_page_from_its_field(client_as, rows):
    """The Undo of a message carries the page it is on, with its query, as its `next`."""
    client = client_as("editor")
    page = bulk_archive(client, rows[:1])
    (form,) = find_all(page, "form", class_="undo-form", method="post")
    assert submitted(form)[1:] == [("next", "/memories/")]
    assert not find_all(form, "input", id=True)


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example/", "javascript:x", ""]
)
def test_an_undo_never_goes_back_off_this_site(client_as, rows, target):
    """A `next` that is not a page of this site is not followed: the Undo goes home instead."""
    client = client_as("editor")
    url = undo_url(bulk_archive(client, rows[:1]))
    response = client.post(url, {"next": target})
    assert (response.status_code, response.url) == (302, reverse("home"))
    assert Memory.objects.get(pk=rows[0].pk).status == "active"  # undone all the same


def test_one_row_of_a_bulk_archive_can_be_undone_and_the_rest_kept(client_as, rows):
    """After archiving two, "Undo some…" lists both; undoing one restores it alone, once, and
    the whole change can no longer be undone (it would overwrite that undo)."""
    client = client_as("editor")
    page = bulk_archive(client, rows[:2])
    some = attribute(find(page, "a", class_="undo-some"), "href")
    assert some == undo_url(page)
    listing = client.get(some).content.decode()
    forms = [f for f in find_all(listing, "form", method="post") if "Undo for #" in text(f)]
    assert len(forms) == 2
    (first,) = [f for f in forms if f"Undo for #{rows[0].display_id}" in text(f)]
    posted = dict(submitted(first))
    after = client.post(attribute(first, "action"), posted, follow=True).content.decode()
    assert "Undone: 1 memory restored." in after
    statuses = dict(
        Memory.objects.filter(pk__in=[rows[0].pk, rows[1].pk]).values_list("pk", "status")
    )
    assert statuses == {rows[0].pk: "active", rows[1].pk: "archived"}
    again = client.post(attribute(first, "action"), posted, follow=True).content.decode()
    assert "This part of the change was undone already." in again
    whole = client.post(some, follow=True).content.decode()
    assert "Part of this change was undone already" in whole
    assert Memory.objects.get(pk=rows[1].pk).status == "archived"
    # The other row is still undone on its own.
    (second,) = [
        f
        for f in find_all(client.get(some).content.decode(), "form", method="post")
        if f"Undo for #{rows[1].display_id}" in text(f)
    ]
    client.post(attribute(second, "action"), dict(submitted(second)))
    assert Memory.objects.get(pk=rows[1].pk).status == "active"


def test_an_undo_naming_no_memory_of_the_change_undoes_nothing(client_as, rows):
    """A memory the change did not write, or a malformed one, is refused with nothing undone."""
    client = client_as("editor")
    url = undo_url(bulk_archive(client, rows[:2]))
    for memory in (str(rows[2].pk), "abc"):
        page = client.post(url, {"memory": memory}, follow=True).content.decode()
        assert "nothing was undone" in page or "did not write memory" in page
    statuses = set(
        Memory.objects.filter(pk__in=[rows[0].pk, rows[1].pk]).values_list("status", flat=True)
    )
    assert statuses == {"archived"}


def test_a_single_edit_offers_no_undo_by_row(client_as, rows):
    """A change of one memory has its Undo and no "Undo some…"."""
    client = client_as("editor")
    memory = rows[0]
    edit = client.get(reverse("memories:edit", args=[memory.pk])).content.decode()
    (form,) = [
        f for f in find_all(edit, "form", method="post") if attribute(f, "class") == "stacked"
    ]
    data = {**dict(submitted(form)), "content": "Rule zero, rewritten."}
    page = client.post(reverse("memories:edit", args=[memory.pk]), data, follow=True)
    assert undo_url(page.content.decode())
    assert not find_all(page.content.decode(), "a", class_="undo-some")
