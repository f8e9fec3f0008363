"""Memory pages through the test client: list fragment, create, edit and their refusals."""

import json

import pytest
from django.urls import reverse
from pytest_django.asserts import assertInHTML

from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from tests.html_tree import attribute, field_error, find, find_all, links, submitted, text, top

pytestmark = pytest.mark.django_db


def shown(body: str) -> list[str]:
    """Return the content cells of the memory list's rows, in order."""
    return [text(cell) for cell in find_all(body, "td", data_label="Content")]


def count(body: str) -> str:
    return text(find(find(body, "section", id="table-section"), "p", class_="count"))


def test_list_requires_login(client):
    """An anonymous visitor is sent to log in."""
    response = client.get("/memories/")
    assert response.status_code == 302
    assert response.url.startswith("/login/")


def test_htmx_request_gets_only_the_table_section(client_as, project):
    """An htmx request renders the table partial, not the whole page."""
    memory_create(project=project, category="OPS_RULES", content="Rule one.", actor="agent")
    client = client_as("viewer")
    full = client.get("/memories/")
    fragment = client.get("/memories/", headers={"HX-Request": "true"})
    assert find(full.content.decode(), "nav", aria_label="Main")
    assert shown(full.content.decode()) == ["Rule one."]
    (section,) = top(fragment.content.decode())  # the section alone, nothing around it
    assert (section.name, attribute(section, "id")) == ("section", "table-section")
    assert find_all(section, "nav", aria_label="Main") == []
    assert shown(fragment.content.decode()) == ["Rule one."]


def test_filters_by_project_category_status_and_text(client_as, project, mc_project):
    """The list filters on every field it offers."""
    memory_create(project=project, category="OPS_RULES", content="Alpha deploy.", actor="agent")
    memory_create(project=project, category="INCIDENTS", content="Beta outage.", actor="agent")
    memory_create(project=mc_project, category="NAMING", content="Gamma naming.", actor="agent")
    client = client_as("viewer")
    incidents = client.get(f"/memories/?project={project.pk}&category=INCIDENTS")
    assert count(incidents.content.decode()) == "1 memory"
    assert shown(incidents.content.decode()) == ["Beta outage."]
    assert shown(client.get("/memories/?q=gamma").content.decode()) == ["Gamma naming."]
    archived = client.get("/memories/?status=archived").content.decode()
    assert count(archived) == "0 memories" and shown(archived) == []


def test_create_refuses_an_exact_duplicate_with_a_link(client_as, project):
    """A duplicate in the same category is refused with a link to the existing memory."""
    existing = memory_create(project=project, category="OPS_RULES", content="Same.", actor="agent")
    response = client_as("editor").post(
        f"/memories/new/?project={project.pk}",
        {
            "content": "  SAME. ",
            "category": "OPS_RULES",
            "importance": 50,
            "scope": "project",
            "status": "active",
        },
    )
    assert response.status_code == 400
    refusal = find(response.content.decode(), "p", class_="error", role="alert")
    assert text(refusal) == f"An identical memory already exists: #{existing.display_id}."
    assert links(refusal) == [(f"#{existing.display_id}", f"/memories/{existing.pk}/")]
    assert Memory.objects.count() == 1


def test_create_offers_only_the_projects_categories(client_as, project):
    """A category outside the project's pack is refused and nothing is written."""
    response = client_as("editor").post(
        f"/memories/new/?project={project.pk}",
        {
            "content": "x",
            "category": "PROJECT_RULES",
            "importance": 50,
            "scope": "project",
            "status": "active",
        },
    )
    assert response.status_code == 400
    assert Memory.objects.count() == 0


def test_importance_out_of_range_is_refused(client_as, project):
    """Importance 0 is refused with a message."""
    response = client_as("editor").post(
        f"/memories/new/?project={project.pk}",
        {
            "content": "x",
            "category": "OPS_RULES",
            "importance": 0,
            "scope": "project",
            "status": "active",
        },
    )
    assert response.status_code == 400
    assert "between 1 and 100" in field_error(response.content.decode(), "id_importance")
    assert Memory.objects.count() == 0


def test_a_merge_without_its_text_is_refused_at_the_box(client_as, project):
    """The merged text is named as missing beside its box; both sources stay live."""
    pair = [
        memory_create(project=project, category="OPS_RULES", content=text, actor="agent")
        for text in ("Rotate keys yearly.", "Rotate the keys every year.")
    ]
    response = client_as("editor").post(
        "/memories/merge/", {"ids": [m.pk for m in pair], "content": "   "}
    )
    assert response.status_code == 400
    assert field_error(response.content.decode(), "id_content") == "This field is required."
    assert Memory.objects.filter(status="active").count() == 2


def merge_pair(project) -> list[Memory]:
    return [
        memory_create(project=project, category="OPS_RULES", content=text, actor="agent")
        for text in ("Rotate keys yearly.", "Rotate the keys every year.")
    ]


def test_the_merge_form_sends_the_ids_of_the_memories_it_lists(client_as, project):
    """The merge page's form carries its sources through its field, one hidden input each."""
    pair = merge_pair(project)
    query = {"ids": [str(m.pk) for m in pair]}
    html = client_as("editor").get("/memories/merge/", query).content.decode()
    form = find(html, "form", method="post", action="/memories/merge/")
    assert [value for name, value in submitted(form) if name == "ids"] == query["ids"]


@pytest.mark.parametrize("junk", ["x", "-3", "1.5", "99999999999999999999999"])
def test_a_merge_naming_a_non_id_is_refused_and_nothing_is_merged(client_as, project, junk):
    """A tampered form naming something that is no memory id: 400, said above the form."""
    pair = merge_pair(project)
    response = client_as("editor").post(
        "/memories/merge/", {"ids": [pair[0].pk, junk, pair[1].pk], "content": "Rotate them."}
    )
    assert response.status_code == 400
    alert = find(response.content.decode(), "div", role="alert")
    assert text(alert) == "A memory to merge is not a memory id: nothing was merged."
    assert not Memory.objects.filter(content="Rotate them.").exists()
    assert Memory.objects.filter(status="active").count() == 2


def test_an_archived_memorys_restore_form_names_it_and_comes_back(client_as, project):
    """Restore posts the one row, the action and this page, from the bulk form's fields."""
    memory = memory_create(project=project, category="OPS_RULES", content="Old.", actor="agent")
    memory_archive(memory=memory, actor="agent", reason="gone")
    html = client_as("editor").get(f"/memories/{memory.pk}/").content.decode()
    form = find(html, "form", class_="restore-form")
    assert submitted(form)[1:] == [
        ("ids", str(memory.pk)),
        ("action", "restore"),
        ("next", f"/memories/{memory.pk}/"),
    ]
    assert not find_all(form, "input", type="hidden", id=True)  # no ids the page's others use
    live = memory_create(project=project, category="OPS_RULES", content="New.", actor="agent")
    assert not find_all(
        client_as("editor").get(f"/memories/{live.pk}/").content.decode(),
        "form",
        class_="restore-form",
    )


def test_concurrent_edit_is_refused_and_both_texts_are_shown(client_as, project):
    """The second of two edits from the same version is refused; both versions are shown."""
    memory = memory_create(project=project, category="OPS_RULES", content="Base.", actor="agent")
    client = client_as("editor")
    form = {
        "category": "OPS_RULES",
        "importance": 50,
        "scope": "project",
        "status": "active",
        "expected_updated_at": memory.updated_at,
    }
    first = client.post(f"/memories/{memory.pk}/edit/", {**form, "content": "Alice's text."})
    assert first.status_code == 302
    second = client.post(f"/memories/{memory.pk}/edit/", {**form, "content": "Bob's text."})
    assert second.status_code == 409
    assert b"Alice&#x27;s text." in second.content and b"Bob&#x27;s text." in second.content
    memory.refresh_from_db()
    assert memory.content == "Alice's text."
    # Saving again is over Alice's version, the one the page now shows, from the form's field.
    again = find(second.content.decode(), "form", method="post", class_="stacked")
    assert dict(submitted(again))["expected_updated_at"] == str(memory.updated_at)
    assert find(again, "input", type="hidden", name="expected_updated_at", id=True)


def edit_status(client, memory, status, reason=""):
    """Post the edit form of `memory` (content "Rule.", in OPS_RULES) with a new status."""
    form = {"content": "Rule.", "category": "OPS_RULES", "importance": 50, "scope": "project"}
    return client.post(
        reverse("memories:edit", args=[memory.pk]),
        {**form, "status": status, "reason": reason, "expected_updated_at": memory.updated_at},
    )


def test_making_a_memory_permanent_shows_as_a_status_change_not_a_restore(client_as, project):
    """Edited from active to permanent: the timeline and the audit log name a status change."""
    memory = memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    client = client_as("editor")
    assert edit_status(client, memory, "permanent").status_code == 302
    page = client.get(reverse("memories:detail", args=[memory.pk])).content.decode()
    newest = find_all(find(page, "ol", class_="memory-timeline"), "li", class_="timeline-entry")[0]
    assert text(find(newest, "span", class_="timeline-label")) == "status changed"
    details = [text(line) for line in find_all(newest, "p", class_="timeline-detail")]
    assert "Status: active → permanent" in details
    assert "restored" not in page
    log = client.get(reverse("audit:index")).content.decode()
    newest_row = find_all(find(find(log, "table", class_="audit-log"), "tbody"), "tr")[0]
    badge = find(newest_row, "span", class_="action")
    assert (badge.attributes, text(badge)) == (
        {"class": "badge action", "title": "status_changed"},
        "status changed",
    )
    action_filter = find(log, "select", name="action")
    assert ("status_changed", "status changed") in [
        (attribute(option, "value"), text(option)) for option in find_all(action_filter, "option")
    ]
    assert "restored" not in log


def test_restoring_from_the_edit_form_clears_the_archived_because(client_as, project):
    """Edited back to active, the page no longer shows why it was archived, bar its history."""
    memory = memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    memory = memory_archive(memory=memory, actor="agent", reason="Superseded by the runbook")
    client = client_as("editor")
    assert edit_status(client, memory, "active").status_code == 302
    page = client.get(reverse("memories:detail", args=[memory.pk])).content.decode()
    assertInHTML(
        f'<h1>Memory #{memory.display_id} <span class="badge status-active">active</span></h1>',
        page,
    )
    assert "archive_reason" not in page
    assert "Metadata" not in [text(term) for term in find_all(page, "dt")]
    reasons = [text(why) for why in find_all(page, "p", class_="timeline-why")]
    assert reasons == ["Why: Superseded by the runbook"]  # the archive, in the history
    assert text(find(find(page, "p", class_="timeline-why"), "em")) == "Superseded by the runbook"
    assert Memory.objects.get(pk=memory.pk).metadata == {}


def test_viewer_cannot_create(client_as, project):
    """A viewer gets 403 on the create page."""
    assert client_as("viewer").get(f"/memories/new/?project={project.pk}").status_code == 403


def test_archiving_from_the_edit_form_keeps_the_reason_as_an_archive_does(client_as, project):
    """Edited to archived, the memory says why in its metadata, as the archive button's does."""
    memory = memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    client = client_as("editor")
    assert (
        edit_status(client, memory, "archived", reason="Replaced by the runbook").status_code == 302
    )
    assert Memory.objects.get(pk=memory.pk).metadata == {
        "archive_reason": "Replaced by the runbook"
    }
    page = client.get(reverse("memories:detail", args=[memory.pk])).content.decode()
    listing = find(page, "dl", class_="fields")
    shown = dict(
        zip(
            [text(name) for name in find_all(listing, "dt")],
            [text(value) for value in find_all(listing, "dd")],
            strict=True,
        )
    )
    assert json.loads(shown["Metadata"]) == {"archive_reason": "Replaced by the runbook"}
