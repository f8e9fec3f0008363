"""The search-as-you-type picker: its endpoints, its field, and the forms that use it."""

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from memadmin.composites.services import composite_create
from memadmin.curation.bulk_forms import BulkActionForm as BulkForm
from memadmin.memories.picker import PICK_LIMIT, chosen_value, search_term
from memadmin.memories.services import memory_create
from tests.html_tree import attribute, find, find_all, parse

pytestmark = pytest.mark.django_db


def choices(body: str) -> list[str]:
    """Return the values the picker's answer offers, in order: its list's choice buttons."""
    answer = parse(body)
    lists = find_all(answer, "ul", class_="picker-list")
    buttons = find_all(lists[0], "button", class_="picker-choice") if lists else []
    offering = [e for e in find_all(answer, hx_get=True) if "choose=" in attribute(e, "hx-get")]
    assert len(lists) <= 1 and offering == buttons, "a choice outside the picker's one list"
    return [
        parse_qs(urlsplit(attribute(button, "hx-get")).query)["choose"][0] for button in buttons
    ]


@pytest.fixture
def memories(project):
    made = [
        memory_create(
            project=project,
            category="OPS_RULES",
            content=f"Rule {n}: deploy on Fridays.",
            actor="agent",
        )
        for n in range(PICK_LIMIT + 5)
    ]
    made.append(
        memory_create(
            project=project, category="OPS_RULES", content="Rollback first.", actor="agent"
        )
    )
    return made


def test_a_word_finds_at_most_the_limit_of_memories(memories, client_as):
    """A word of the text answers at most PICK_LIMIT memories, each by its display id."""
    body = (
        client_as("viewer")
        .get("/memories/pick/", {"field": "members", "members": "deploy"})
        .content.decode()
    )
    found = choices(body)
    assert len(found) == PICK_LIMIT
    assert f"#{memories[-1].pk}" not in found
    assert all(value.startswith("#") for value in found)


def test_an_id_finds_that_memory_and_a_missing_word_says_so(memories, client_as):
    """ "#12" finds memory 12; a word nothing holds answers that nothing matches."""
    client = client_as("viewer")
    wanted = memories[-1]
    body = client.get(
        "/memories/pick/", {"field": "head", "head": f"#{wanted.pk}"}
    ).content.decode()
    assert choices(body) == [f"#{wanted.pk}"] and "Rollback first." in body
    body = client.get("/memories/pick/", {"field": "head", "head": "zebra"}).content.decode()
    assert choices(body) == [] and "Nothing matches" in body


def test_the_search_stays_in_the_project_asked(memories, make_project, client_as):
    """A picker scoped to one project never offers another project's memories."""
    other = make_project("ops-six")
    stranger = memory_create(
        project=other, category="OPS_RULES", content="Deploy elsewhere.", actor="agent"
    )
    body = client_as("viewer").get(
        "/memories/pick/", {"field": "members", "members": "elsewhere", "project": other.pk}
    )
    assert choices(body.content.decode()) == [f"#{stranger.pk}"]
    body = client_as("viewer").get(
        "/memories/pick/",
        {"field": "members", "members": "elsewhere", "project": memories[0].project_id},
    )
    assert choices(body.content.decode()) == []


def test_choosing_appends_the_id_and_drops_the_search_word(memories, client_as):
    """An append picker keeps the ids typed, drops the word, and adds the choice once."""
    body = (
        client_as("viewer")
        .get(
            "/memories/pick/",
            {
                "field": "members",
                "mode": "append",
                "id": "id_members",
                "members": "3, #4, depl",
                "choose": "#9",
            },
        )
        .content.decode()
    )
    picker = find(body, "span", class_="picker")
    field = find(picker, "input", type="text", name="members", id="id_members", value="3, #4, #9, ")
    assert "data-focus-end" in field.attributes  # picker.js: caret after the value, focused
    assert chosen_value("#9", "#9", "append") == "#9, "
    # What is typed after the separator is a new search, not part of the id.
    assert search_term("#9, cold storage", "append") == "cold storage"
    assert search_term("3, #4, depl", "append") == "depl" and search_term(" a, b ", "one") == "a, b"


def test_a_request_no_picker_sends_is_refused(client_as):
    """An unknown field name, mode or choice is answered 400, with a reason."""
    client = client_as("viewer")
    assert client.get("/memories/pick/", {"field": "<b>"}).status_code == 400
    assert client.get("/memories/pick/", {"field": "x", "mode": "all"}).status_code == 400
    assert client.get("/memories/pick/", {"field": "x", "choose": "all"}).status_code == 400


def test_the_composite_picker_finds_by_title_and_by_id(memories, client_as):
    """A word of a title, or an id, finds the composite."""
    one = composite_create(head=memories[0], type="theme", title="Release train", actor="agent")
    composite_create(head=memories[1], type="theme", title="Other", actor="agent")
    client = client_as("viewer")
    body = client.get("/composites/pick/", {"field": "composite", "composite": "train"})
    assert choices(body.content.decode()) == [f"#{one.pk}"]
    body = client.get("/composites/pick/", {"field": "composite", "composite": str(one.pk)})
    assert (
        choices(body.content.decode()) == [f"#{one.pk}"]
        and "Release train" in body.content.decode()
    )


def test_the_bulk_form_takes_a_composite_by_id_or_exact_title(memories):
    """Without JavaScript a composite is typed: its id or its title; two of one title refuse."""
    one = composite_create(head=memories[0], type="theme", title="Release train", actor="agent")
    base = {"ids": [memories[2].pk], "action": "add"}
    for typed in (str(one.pk), f"#{one.pk}", "release TRAIN"):
        form = BulkForm({**base, "composite": typed})
        assert form.is_valid(), form.errors
        assert form.cleaned_data["composite"] == one
    form = BulkForm({**base, "composite": "No such"})
    assert not form.is_valid() and "No composite has the id or title" in str(form.errors)
    composite_create(head=memories[1], type="theme", title="Release train", actor="agent")
    form = BulkForm({**base, "composite": "Release train"})
    assert not form.is_valid() and "2 composites are titled" in str(form.errors)


def test_the_composite_pages_offer_the_memory_picker(memories, client_as):
    """Members are picked on the composite creation page and the composite's page."""
    client = client_as("editor")
    composite = composite_create(head=memories[0], type="sequence", actor="agent")
    for url in (f"/composites/new/?head={memories[0].pk}", f"/composites/{composite.pk}/"):
        body = client.get(url).content.decode()
        pickers = find_all(body, "span", class_="picker")
        (field,) = [
            field for picker in pickers for field in find_all(picker, "input", name="members")
        ]
        assert attribute(field, "hx-get") == "/memories/pick/", url
        assert json.loads(attribute(field, "hx-vals"))["project"] == str(memories[0].project_id)
