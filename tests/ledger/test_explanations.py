"""The ledger explains itself: status, importance, rank and why; find a row; the memory page."""

import re

import pytest

from memadmin.memories.services import memory_create
from tests.html_tree import attribute, find, links, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def store(project):
    """Long memories: at 500 tokens only a few fit."""
    return [
        memory_create(
            project=project,
            category="OPS_RULES",
            content=f"Rule {n:02d}: " + "keep this fact in mind always " * 12,
            importance=90 - n,
            actor="historian",
        )
        for n in range(12)
    ]


def ledger(client, project, **query):
    params = {"budget": 500, "counter": "heuristic", "mode": "pack", **query}
    return client.get(f"/ledger/{project.pk}/", params).content.decode()


def test_each_row_shows_status_importance_rank_and_what_placed_it(client_as, project, store):
    """The first row is first in the order; the next says it has lower importance."""
    html = ledger(client_as("viewer"), project)
    first = find(html, "tr", id=f"row-{store[0].pk}")
    second = find(html, "tr", id=f"row-{store[1].pk}")
    status = find(find(first, "td", data_label="Status"), "span", class_="badge status-active")
    assert text(status) == "active"
    assert text(find(first, "td", data_label="Importance")) == "90"
    placed = find(find(first, "td", data_label="Decision"), "small", class_="ledger-placed")
    assert text(placed) == "Rank: first in the selection order"
    placed = find(find(second, "td", data_label="Decision"), "small", class_="ledger-placed")
    assert text(placed) == f"Rank: importance 89, below #{store[0].pk}'s 90"


def test_an_excluded_row_states_its_need_and_what_was_left(client_as, project, store):
    """A left-out row reads "needed N tokens, M left when its turn came"."""
    html = ledger(client_as("viewer"), project, decision="out")
    needed = re.findall(r"needed (\d+) tokens, (\d+) left when its turn came", html)
    assert needed
    assert all(int(need) > int(left) for need, left in needed)


def test_find_jumps_to_a_memorys_page_of_rows(client_as, project, store):
    """Find shows the page holding the memory's row and marks it."""
    many = [
        memory_create(project=project, category="ENV_STATE", content=f"Host {n} up.", actor="agent")
        for n in range(60)
    ]
    html = ledger(client_as("viewer"), project, find=many[-1].pk)
    found = find(html, "p", class_="saved ledger-find")
    assert text(found) == f"#{many[-1].pk} is on this page: go to its row."
    assert attribute(find(found, "a"), "href") == f"#row-{many[-1].pk}"
    marked = attribute(find(html, "tr", id=f"row-{many[-1].pk}"), "class").split()
    assert sorted(marked) in (["found", "left-out"], ["found", "injected"])
    missing = ledger(client_as("viewer"), project, find=99999)
    assert "No row for #99999 among the rows shown." in missing


def test_the_memory_page_says_whether_it_is_injected_and_why(client_as, project, store):
    """An injected memory says yes with its room; a left-out one says what it needed."""
    project.injection_budget = 500
    project.save()
    client = client_as("viewer")
    yes = client.get(f"/memories/{store[0].pk}/").content.decode()
    verdict = find(yes, "p", class_="injection-verdict")
    assert text(find(verdict, "strong")) == "yes"
    prefix = "Injected at budget 500 by a plugin that reads this project's pack (the ledger's “pack” mode): "
    assert text(verdict).startswith(prefix + "yes, fitted:")
    assert "The stock magic-context plugin never injects it: magic-context does not know" in yes
    no = client.get(f"/memories/{store[-1].pk}/").content.decode()
    verdict = find(no, "p", class_="injection-verdict")
    assert text(find(verdict, "strong")) == "no"
    assert text(verdict).startswith(prefix + "no, needed")
    assert dict(links(no))["See its row in the ledger"] == (
        f"/ledger/{project.pk}/?mode=pack&find={store[-1].pk}#row-{store[-1].pk}"
    )
