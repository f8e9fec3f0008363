"""The list's bulk actions are narrowed to what the rows shown, or the rows ticked, allow."""

import pytest
from django.contrib.messages import get_messages

from memadmin.memories.archive_services import memory_archive
from memadmin.memories.bulk_offers import actions_allowed
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, selected, submitted, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(project):
    """Two live rules, a live config value and an archived rule."""

    def make(content, category="OPS_RULES"):
        return memory_create(project=project, category=category, content=content, actor="agent")

    made = [make("Rule 0."), make("Rule 1."), make("Pool size 5.", "CONFIG_VALUES")]
    made.append(memory_archive(memory=make("Old rule."), actor="agent", reason="gone"))
    return made


def offered(html: str) -> list[str]:
    """Return the values of the bulk action select's options."""
    select = find(html, "select", name="action", id="bulk-action")
    return [attribute(option, "value") for option in find_all(select, "option")]


def test_a_page_of_archived_rows_offers_no_archive(client_as, rows):
    """Listing archived memories only: restore and move, never archive, add or merge."""
    html = client_as("editor").get("/memories/?status=archived").content.decode()
    assert offered(html) == ["restore", "move"]


def test_a_page_of_live_rows_offers_no_restore(client_as, rows):
    """The default list (live memories): archive, move, add, and merge (two share a category)."""
    html = client_as("editor").get("/memories/").content.decode()
    assert offered(html) == ["archive", "move", "add", "merge"]
    assert "{#" not in html and "{%" not in html  # the template's comments stay comments


def test_the_selection_narrows_the_actions(client_as, rows):
    """Ticked rows get the actions they allow; the chosen action stays while allowed."""
    client = client_as("editor")
    live, other, config, archived = rows

    def actions(*memories, action=""):
        query = {"ids": [m.pk for m in memories], "action": action}
        response = client.get("/memories/bulk/actions/", query, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        return response.content.decode()

    assert offered(actions(archived)) == ["restore", "move"]
    assert offered(actions(live, archived)) == ["archive", "restore", "move", "add"]
    assert offered(actions(live, config)) == ["archive", "move", "add"]  # two categories
    both = actions(live, other, action="merge")
    assert offered(both) == ["archive", "move", "add", "merge"]
    assert selected(find(both, "select", name="action", id="bulk-action")) == ["merge"]


def test_with_nothing_ticked_the_page_stands_for_the_selection(client_as, rows):
    """No ticked row: the actions some row of the page allows (merge if two could merge)."""
    client = client_as("editor")
    shown = ",".join(str(m.pk) for m in rows)
    html = client.get("/memories/bulk/actions/", {"shown": shown}).content.decode()
    assert offered(html) == ["archive", "restore", "move", "add", "merge"]


def test_only_editors_ask_for_the_actions(client_as, rows):
    """A viewer has no bulk bar, and the actions are refused."""
    assert client_as("viewer").get("/memories/bulk/actions/").status_code == 403


def test_a_superseded_memory_offers_no_restore():
    """A memory merged into another comes back by undoing the merge, so restore is not offered."""
    merged = Memory(pk=7, project_id=1, category="OPS_RULES", status="archived", superseded_by_id=9)
    assert actions_allowed([merged], chosen=True) == ["move"]
    assert actions_allowed([merged], chosen=True, can_move=False) == []


def fields(html: str) -> set[str]:
    """Return which of the bulk bar's action fields the page has."""
    bar = find(html, "form", id="bulk-form")
    assert len(find_all(html, id="bulk-category") + find_all(html, id="bulk-composite")) == len(
        find_all(bar, id="bulk-category") + find_all(bar, id="bulk-composite")
    )  # none outside the bar
    return {name for name in ("bulk-category", "bulk-composite") if find_all(bar, id=name)}


def test_a_field_is_there_only_when_its_action_is_offered(client_as, rows):
    """Archived rows cannot be added to a composite: no composite field; live rows: both."""
    client = client_as("editor")
    assert fields(client.get("/memories/?status=archived").content.decode()) == {"bulk-category"}
    assert fields(client.get("/memories/").content.decode()) == {"bulk-category", "bulk-composite"}


def test_the_narrowed_answer_says_which_actions_it_offers(client_as, rows):
    """The htmx answer names its actions, so the stylesheet hides the fields of the others."""
    _, _, _, archived = rows
    client = client_as("editor")
    html = client.get(
        "/memories/bulk/actions/", {"ids": [archived.pk]}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert find(html, "p", id="bulk-action-choice", data_offers="restore move")


def test_a_hidden_field_typed_before_does_not_refuse_another_action(client_as, rows):
    """A composite typed, then hidden as the selection narrowed: an archive still goes on."""
    live, *_ = rows
    client = client_as("editor")
    data = {"ids": [live.pk], "action": "archive", "composite": "no such composite"}
    response = client.post("/memories/bulk/", data)
    assert response.status_code == 200
    assert "1 row will change" in response.content.decode()
    refused = client.post("/memories/bulk/", {**data, "action": "add"})
    assert refused.status_code == 302  # back to the list, where the refusal is shown
    shown = [message.message for message in get_messages(refused.wsgi_request)]
    assert any("No composite has the id or title" in message for message in shown)


def test_the_bulk_bar_sends_the_rows_shown_and_the_page_it_is_on(client_as, rows):
    """Its hidden values are its form's: `next` the list page, `shown` the page's ids in order."""
    response = client_as("editor").get("/memories/", {"status": "any"})
    pairs = submitted(find(response.content.decode(), "form", id="bulk-form"))
    page_ids = [str(row.record.pk) for row in response.context["table"].paginated_rows]
    assert len(page_ids) == 4
    assert [value for name, value in pairs if name == "shown"] == [",".join(page_ids)]
    assert [value for name, value in pairs if name == "next"] == ["/memories/?status=any"]


@pytest.mark.parametrize("junk", ["x", "-1", "0", "1e3", "99999999999999999999999", " "])
def test_a_malformed_id_among_the_rows_shown_is_left_out(client_as, rows, junk):
    """What is not an id is left out of `shown`: the answer is the one for the ids it holds."""
    *_, archived = rows
    client = client_as("editor")
    html = client.get("/memories/bulk/actions/", {"shown": f"{junk},{archived.pk},{junk}"})
    assert html.status_code == 200
    assert offered(html.content.decode()) == ["restore", "move"]


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/memories/", "memories"]
)
def test_a_next_off_this_site_is_never_followed(client_as, rows, target):
    """A refused selection goes back to the list, and a review's Cancel and its confirmation
    name the list, not the address posted."""
    live, *_ = rows
    client = client_as("editor")
    refused = client.post("/memories/bulk/", {"ids": ["x"], "action": "archive", "next": target})
    assert (refused.status_code, refused.url) == (302, "/memories/")
    messages = [message.message for message in get_messages(refused.wsgi_request)]
    assert messages == ["A selected row is not a memory id."]
    assert Memory.objects.get(pk=live.pk).status == "active"
    review = client.post("/memories/bulk/", {"ids": [live.pk], "action": "archive", "next": target})
    form = find(review.content.decode(), "form", method="post", action="/memories/bulk/")
    assert dict(submitted(form))["next"] == "/memories/"
    done = client.post("/memories/bulk/", {**dict(submitted(form)), "confirm": "1", "next": target})
    assert (done.status_code, done.url) == (302, "/memories/")


def test_a_merged_source_says_why_restore_is_not_offered(client_as, rows):
    """Ticking a memory merged into another: restore is not offered, and the bar says why."""
    from memadmin.curation.merge_services import memory_merge

    result = memory_merge(memories=rows[:2], content="Rules 0 and 1.", actor="agent")
    client = client_as("editor")
    html = client.get("/memories/bulk/actions/", {"ids": [rows[0].pk]}).content.decode()
    assert "restore" not in offered(html)
    note = find(html, "small", class_="bulk-withheld")
    assert note.children[0] == (
        f"Restore is not offered: #{rows[0].display_id} was merged into #{result.display_id}: "
        f"undo the merge from #{result.display_id}'s page instead."
    )
    # A memory archived on its own is restorable, and nothing is withheld.
    html = client.get("/memories/bulk/actions/", {"ids": [rows[3].pk]}).content.decode()
    assert "restore" in offered(html)
    assert not find_all(html, "small", class_="bulk-withheld")
    assert result.pk


def test_a_page_of_superseded_memories_says_why_restore_is_missing(client_as, project, rows):
    """Without JavaScript (nothing ticked), a page whose archived rows were all superseded
    says why its menu has no Restore: merged, fragmented or superseded, each its own way."""
    from memadmin.curation.merge_services import memory_merge
    from memadmin.structure.fragment_lines import offsets_of
    from memadmin.structure.fragment_services import memory_fragment

    memory_update(memory=rows[3], status="active", actor="agent")
    merged = memory_merge(memories=rows[:2], content="Rules 0 and 1.", actor="agent")
    long = memory_create(
        project=project,
        category="OPS_RULES",
        content="Title line\n\nFirst.\n\nSecond.",
        actor="agent",
    )
    header = memory_fragment(
        memory=long,
        boundaries=offsets_of(long.content, [5]),
        composite_type="theme",
        summary="Two facts.",
        actor="agent",
    ).header
    client = client_as("editor")
    html = client.get("/memories/", {"status": "archived", "sort": "id"}).content.decode()
    assert "restore" not in offered(html)
    note = text(find(html, "small", class_="bulk-withheld"))
    assert note == (
        f"Restore is not offered: #{rows[0].display_id} was merged into #{merged.display_id}: "
        f"undo the merge from #{merged.display_id}'s page instead; #{rows[1].display_id} was "
        f"merged into #{merged.display_id}: undo the merge from #{merged.display_id}'s page "
        f"instead; #{long.display_id} was fragmented into details under #{header.display_id}: "
        "they hold its text."
    )
    # A page with a restorable row offers Restore, and says nothing.
    memory_update(memory=rows[3], status="archived", actor="agent")
    html = client.get("/memories/", {"status": "archived"}).content.decode()
    assert "restore" in offered(html)
    assert not find_all(html, "small", class_="bulk-withheld")


def test_the_note_names_three_and_counts_the_rest(client_as, project):
    """Five superseded memories: three named, "and 2 more like them"."""
    successor = memory_create(project=project, category="OPS_RULES", content="New.", actor="agent")
    for n in range(5):
        old = memory_create(
            project=project, category="OPS_RULES", content=f"Old {n}.", actor="agent"
        )
        Memory.objects.filter(pk=old.pk).update(status="archived", superseded_by=successor)
    html = client_as("editor").get("/memories/", {"status": "archived"}).content.decode()
    note = text(find(html, "small", class_="bulk-withheld"))
    assert note.count(f"superseded by #{successor.display_id}: the newer memory holds") == 3
    assert note.endswith("; and 2 more like them.")
