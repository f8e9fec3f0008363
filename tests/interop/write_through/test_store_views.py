"""The pages of write-through: refusals keep the typed text, read-only and pending banners,
conflicts with both texts and a word diff, resolved by a curator without JavaScript."""

import subprocess
import sys

import pytest
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.interop.models import SyncConflict
from memadmin.interop.write_through.store_writes import GATEWAY
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.services import CONTENT_MAX_CHARS, memory_update
from tests.html_tree import attribute, field_error, find, find_all, links, submitted
from tests.interop.conftest import PROJECT
from tests.interop.planning.test_sync_threeway import agent_edit
from tests.interop.write_through.test_store_refusals import HOLD_LOCK
from tests.interop.write_through.test_store_writes import store_exec, store_row, synced
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def synced_store(store):
    path = store(rows=[make_row(content="Use the VPN."), make_row(content="Tabs.")], sessions=[])
    context_db_sync(path=path)
    GATEWAY._probes.clear()
    return path


def edit_form(memory, content: str) -> dict:
    return {
        "content": content,
        "category": memory.category,
        "importance": memory.importance,
        "scope": memory.scope,
        "status": memory.status,
        "expected_updated_at": memory.updated_at,
    }


def test_an_edit_saved_in_the_browser_reaches_the_store(client_as, synced_store):
    """Saving the edit form writes the store and redirects to the memory."""
    memory = synced(1)
    response = client_as("editor").post(
        reverse("memories:edit", args=[memory.pk]), edit_form(memory, "Use the office VPN.")
    )
    assert response.status_code == 302
    assert store_row(synced_store, 1)["content"] == "Use the office VPN."


def test_a_busy_store_refuses_and_keeps_the_typed_text(client_as, synced_store, settings):
    """The agent holds the lock: "try again", and the form still holds what was typed."""
    settings.MEMADMIN_STORE_TIMEOUT = 0.3
    memory = synced(1)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(synced_store), "5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        response = client_as("editor").post(
            reverse("memories:edit", args=[memory.pk]), edit_form(memory, "My careful new text.")
        )
    finally:
        holder.kill()
        holder.wait()
    page = response.content.decode()
    assert response.status_code == 400
    assert "The agent is writing to the store; try again." in page
    form = find(page, "form", method="post", action=reverse("memories:edit", args=[memory.pk]))
    assert find(form, "textarea", name="content")
    assert dict(submitted(form))["content"] == "My careful new text."
    assert synced(1).content == "Use the VPN."


def test_an_agent_edit_since_the_page_load_shows_both_versions(client_as, synced_store):
    """The store's text and the person's are both on the page; neither is saved over."""
    memory = synced(1)
    agent_edit(synced_store, 1, "Use the VPN, always.")
    response = client_as("editor").post(
        reverse("memories:edit", args=[memory.pk]), edit_form(memory, "Use the office VPN.")
    )
    page = response.content.decode()
    assert response.status_code == 400
    assert "changed this memory in the store" in page, page[page.find("errorlist") :][:600]
    assert "The store's version" in page
    assert "Use the VPN, always." in page
    assert "Use the office VPN." in page


def test_a_read_only_project_says_why_on_its_pages(client_as, synced_store):
    """Authority held upstream: the memory page and the edit page carry the reason."""
    store_exec(
        synced_store,
        "INSERT INTO authority_managed (project_path, since) VALUES (?, 0)",
        (PROJECT,),
    )
    GATEWAY._probes.clear()
    client = client_as("editor")
    for url in (
        reverse("memories:detail", args=[synced(1).pk]),
        reverse("memories:edit", args=[synced(1).pk]),
        reverse("memories:list") + f"?project={synced(1).project_id}",
    ):
        page = client.get(url).content.decode()
        assert "is read-only:" in page, url
        assert "Rust module manages its memory writes" in page, url


def test_pending_changes_are_marked(client_as, synced_store, settings):
    """On a server without the file, the memory page says its change is pending."""
    settings.MEMADMIN_STORE_WRITES = "pending"
    memory = memory_update(memory=synced(1), actor="system", content="Use the office VPN.")
    page = client_as("viewer").get(reverse("memories:detail", args=[memory.pk])).content.decode()
    assert "Pending: this memory" in page
    assert "edits are kept as pending changes (1 now)" in page
    listing = client_as("viewer").get(reverse("memories:list")).content.decode()
    assert "pending" in listing


@pytest.fixture
def conflict(synced_store, settings):
    settings.MEMADMIN_STORE_WRITES = "pending"
    memory_update(memory=synced(1), actor="system", content="Use the office VPN.")
    agent_edit(synced_store, 1, "Use the VPN, always.")
    settings.MEMADMIN_STORE_WRITES = "through"
    context_db_sync(path=synced_store)
    return SyncConflict.objects.get()


def test_conflicts_are_listed_with_both_texts_and_a_word_diff(client_as, conflict):
    """The Import/export page and the memory page show both texts and the word diff."""
    client = client_as("viewer")
    for url in (reverse("interop:index"), reverse("memories:detail", args=[conflict.memory_id])):
        page = client.get(url).content.decode()
        assert "Use the VPN, always." in page, url
        assert "Use the office VPN." in page, url
        (shown,) = find_all(page, "article", class_="sync-conflict")
        diff = find(shown, "p", class_="word-diff")
        assert [added.children for added in find_all(diff, "ins")] == [["office "]], url
        assert [gone.children for gone in find_all(diff, "del")] == [[", always"]], url
        assert "Keep the store" not in page, url  # a viewer cannot resolve


def test_a_curator_saves_a_merged_text_without_javascript(client_as, conflict, synced_store):
    """The merged text goes to both sides; the curator is sent back to the memory."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    response = client_as("curator").post(
        url, {"keep": "merged", "content": "Use the office VPN, always.", "next": "/interop/"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/interop/"
    assert synced(1).content == "Use the office VPN, always."
    assert store_row(synced_store, 1)["content"] == "Use the office VPN, always."


@pytest.mark.parametrize("content", ["", "   ", "x" * (CONTENT_MAX_CHARS + 1)])
def test_a_bad_merged_text_is_refused_at_its_box_and_nothing_changes(
    client_as, conflict, synced_store, content
):
    """No text, or too long a one: 400, the conflict again with the error at the box, the text
    kept; neither side nor the conflict is touched."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    response = client_as("curator").post(
        url, {"keep": "merged", "content": content, "next": "/interop/"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    box = f"conflict-{conflict.pk}-content"
    expected = "A memory holds at most" if content.strip() else "Write the merged text."
    assert expected in field_error(html, box)
    assert typed(find(html, "textarea", id=box)) == content
    back = links(find(html, "p", class_="crumbs"))
    assert back == [("Back without resolving it", "/interop/")]  # where the form was
    assert synced(1).content == "Use the office VPN."
    assert store_row(synced_store, 1)["content"] == "Use the VPN, always."
    assert SyncConflict.objects.filter(pk=conflict.pk).exists()


def test_an_unknown_choice_is_refused_and_nothing_changes(client_as, conflict, synced_store):
    """A keep the form does not offer is named on the refusal page; nothing is written."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    response = client_as("curator").post(url, {"keep": "both"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "Choose one of: store, memadmin, merged." in html
    merge = find(html, "textarea", name="content")
    assert typed(merge) == "Use the office VPN."  # the merge offered afresh, from memadmin's text
    assert [attribute(i, "value") for i in find_all(html, "input", name="keep")] == ["merged"]
    assert synced(1).content == "Use the office VPN."
    assert SyncConflict.objects.filter(pk=conflict.pk).exists()


def test_the_merge_box_is_a_form_field_with_its_own_ids(client_as, conflict):
    """On both pages the box is the form's: its label names it, its POST name is content."""
    client = client_as("curator")
    for url in (reverse("interop:index"), reverse("memories:detail", args=[conflict.memory_id])):
        html = client.get(url).content.decode()
        box = find(html, "textarea", name="content")
        assert box.attributes["id"] == f"conflict-{conflict.pk}-content", url
        assert find(html, "label", **{"for": box.attributes["id"]}), url
        assert typed(box) == "Use the office VPN.", url
        assert find(html, "input", name="keep", type="hidden").attributes["value"] == "merged"


def typed(textarea) -> str:
    """Return a textarea's text as the browser holds it (the newline after the tag dropped)."""
    return "".join(textarea.children).removeprefix("\n")


def test_each_form_of_a_conflict_sends_where_it_was_from_its_fields(client_as, conflict):
    """The side buttons' form and the merge form carry `next` (and the merge its `keep`) from
    the conflict's form, on both pages, with a reason box each; the side form's ids are apart."""
    client = client_as("curator")
    action = reverse("interop:conflict_resolve", args=[conflict.pk])
    detail = reverse("memories:detail", args=[conflict.memory_id])
    for url, back in ((reverse("interop:index"), "/interop/"), (detail, detail)):
        html = client.get(url).content.decode()
        sides, merge = find_all(html, "form", method="post", action=action)
        assert submitted(sides)[1:] == [("next", back), ("reason", "")], url
        assert submitted(merge)[1:] == [
            ("keep", "merged"),
            ("next", back),
            ("content", "Use the office VPN."),
            ("reason", ""),
        ], url
        side_ids = [attribute(control, "id") for control in find_all(sides, "input", id=True)]
        assert side_ids == [
            f"conflict-{conflict.pk}-side-next",
            f"conflict-{conflict.pk}-side-reason",
        ]


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example/", "javascript:x"]
)
def test_a_next_off_this_site_goes_to_the_memory_instead(client_as, conflict, target):
    """A resolved conflict never sends the curator off this site: to the memory's page."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    response = client_as("curator").post(url, {"keep": "store", "next": target})
    assert response.status_code == 302
    assert response["Location"] == reverse("memories:detail", args=[conflict.memory_id])
    assert not SyncConflict.objects.filter(pk=conflict.pk).exists()


def test_a_refused_side_offers_both_forms_again_with_the_checked_next(client_as, conflict):
    """Refused, the conflict's forms come back carrying this site's page, not the one posted."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    response = client_as("curator").post(url, {"keep": "both", "next": "https://evil.example/"})
    assert response.status_code == 400
    detail = reverse("memories:detail", args=[conflict.memory_id])
    for form in find_all(response.content.decode(), "form", method="post", action=url):
        assert dict(submitted(form))["next"] == detail
    assert SyncConflict.objects.filter(pk=conflict.pk).exists()


def test_an_editor_cannot_resolve_a_conflict(client_as, conflict):
    """Resolving is a curator's call."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    assert client_as("editor").post(url, {"keep": "store"}).status_code == 403
    assert SyncConflict.objects.exists()


@pytest.mark.parametrize(
    ("data", "kept_text"),
    [
        ({"keep": "store"}, "Use the VPN, always."),
        (
            {"keep": "merged", "content": "Use the office VPN, always."},
            "Use the office VPN, always.",
        ),
    ],
)
def test_the_reason_typed_at_a_choice_is_kept_on_its_audit_record(
    client_as, conflict, data, kept_text
):
    """Both forms of a conflict offer a reason box; what is typed there is the record's reason."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    client = client_as("curator")
    page = client.get(reverse("memories:detail", args=[conflict.memory_id])).content.decode()
    forms = find_all(page, "form", method="post", action=url)
    assert [[name for name, _ in submitted(form) if name == "reason"] for form in forms] == [
        ["reason"],
        ["reason"],
    ]
    response = client.post(url, data | {"reason": "The agent's text is the newer one."})
    assert response.status_code == 302
    assert synced(1).content == kept_text
    event = AuditEvent.objects.get(action="conflict_resolved")
    assert event.reason == "The agent's text is the newer one."


@pytest.mark.parametrize("keep", ["store", "merged"])
def test_too_long_a_reason_is_refused_and_nothing_changes(client_as, conflict, synced_store, keep):
    """A reason over 500 characters is said, where it was typed, and nothing is resolved."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    data = {"keep": keep, "content": "Use the office VPN, always.", "reason": "x" * 501}
    response = client_as("curator").post(url, data)
    assert response.status_code == 400
    html = response.content.decode()
    box = (
        f"conflict-{conflict.pk}-reason"
        if keep == "merged"
        else f"conflict-{conflict.pk}-side-reason"
    )
    assert "Keep the reason to 500 characters at most." in field_error(html, box)
    assert attribute(find(html, "input", id=box), "value") == "x" * 501  # kept, to shorten
    assert synced(1).content == "Use the office VPN."
    assert store_row(synced_store, 1)["content"] == "Use the VPN, always."
    assert SyncConflict.objects.filter(pk=conflict.pk).exists()
    assert not AuditEvent.objects.filter(action="conflict_resolved").exists()


def test_a_merged_text_another_memory_has_is_refused_at_its_box(client_as, conflict, synced_store):
    """The merge would make two identical memories of the category: refused at the box with
    the other memory named, the text kept, nothing written on either side."""
    url = reverse("interop:conflict_resolve", args=[conflict.pk])
    other = synced(2)
    response = client_as("curator").post(url, {"keep": "merged", "content": other.content})
    assert response.status_code == 400
    html = response.content.decode()
    box = f"conflict-{conflict.pk}-content"
    assert "An identical memory already exists in" in field_error(html, box)
    assert typed(find(html, "textarea", id=box)) == other.content
    assert synced(1).content == "Use the office VPN."
    assert store_row(synced_store, 1)["content"] == "Use the VPN, always."
    assert SyncConflict.objects.filter(pk=conflict.pk).exists()
    assert not AuditEvent.objects.filter(action="conflict_resolved").exists()
