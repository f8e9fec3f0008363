"""The overview's links, followed: each lands on the memory list filtered as its figure counts.

A store may hold a category the pack does not define, with any characters in its name.
"""

import pytest

from memadmin.core.clock import now_ms
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from tests.html_tree import find, links
from tests.links import asked, href

pytestmark = pytest.mark.django_db

AWKWARD = "R&D #2 + 50% é 東京"


@pytest.fixture
def store(project):
    """Three live memories (one of AWKWARD, one expiring in two days) and an archived one."""
    made = [
        memory_create(project=project, category="OPS_RULES", content=f"Rule {n}.", actor="agent")
        for n in range(4)
    ]
    memory_archive(memory=made[3], actor="agent", reason="obsolete")
    Memory.objects.filter(pk=made[0].pk).update(category=AWKWARD)  # as a sync would
    Memory.objects.filter(pk=made[1].pk).update(expires_at=now_ms() + 2 * 86_400_000)
    return made


def listed(response) -> tuple[dict, set[int]]:
    """Return the filters the memory list read and the memories it shows."""
    assert response.status_code == 200
    table = response.context["table"]
    return response.context["form"].cleaned_data, {row.record.pk for row in table.paginated_rows}


def test_each_figure_of_a_card_lands_on_the_memories_it_counts(client_as, project, store):
    """Status, unknown category, expiring and chart links filter the list to what they count."""
    client = client_as("viewer")
    html = client.get("/", {"page": "9"}).content.decode()  # the page's own query stays behind
    card = find(html, "section", class_="overview-project")

    statuses = find(card, "ul", class_="overview-statuses")
    filters, shown = listed(client.get(href(statuses, "archived 1")))
    assert (filters["project"], filters["status"]) == (project, "archived")
    assert shown == {store[3].pk}

    attention = find(card, "ul", class_="overview-attention")
    response = client.get(href(attention, f"1 in {AWKWARD}"))
    assert asked(response) == {
        "project": [str(project.pk)],
        "category": [AWKWARD],
        "status": ["any"],
    }
    filters, shown = listed(response)
    assert filters["category"] == AWKWARD and shown == {store[0].pk}

    response = client.get(href(attention, "1 expiring in the next 7 days"))
    assert asked(response) == {"project": [str(project.pk)], "expiring": ["7"]}
    assert listed(response)[1] == {store[1].pk}

    bars = [
        client.get(address) for _, address in links(find(card, "figure", class_="overview-chart"))
    ]
    (bar,) = [response for response in bars if asked(response)["category"] == [AWKWARD]]
    assert asked(bar) == {"project": [str(project.pk)], "category": [AWKWARD]}
    filters, shown = listed(bar)
    assert filters["category"] == AWKWARD and shown == {store[0].pk}
