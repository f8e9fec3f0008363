"""The memory list's addresses, followed: its pages keep an awkward filter; merge keeps the ids."""

import pytest
from django.urls import reverse

from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from tests.html_tree import find
from tests.links import asked, href

pytestmark = pytest.mark.django_db

AWKWARD = "R&D #2 + 50% é 東京"


@pytest.fixture
def rows(project):
    """Five memories of AWKWARD, a category the pack does not define, and one of OPS_RULES."""
    made = [
        memory_create(project=project, category="OPS_RULES", content=f"Rule {n}.", actor="agent")
        for n in range(6)
    ]
    Memory.objects.filter(pk__in=[m.pk for m in made[:5]]).update(category=AWKWARD)
    return made


def test_a_page_link_keeps_the_category_sort_and_page_size(client_as, project, rows):
    """Page 2 of a filtered, sorted list shows the next memories of the same filter."""
    client = client_as("viewer")
    query = {"project": project.pk, "category": AWKWARD, "sort": "id", "per_page": 2}
    first = client.get(reverse("memories:list"), query)
    pager = find(first.content.decode(), "nav", aria_label="Pages of memories")
    second = client.get(href(pager, "2"))
    assert asked(second) == {**{key: [str(value)] for key, value in query.items()}, "page": ["2"]}
    assert second.context["form"].cleaned_data["category"] == AWKWARD
    shown = [row.record.pk for row in second.context["table"].paginated_rows]
    assert shown == [rows[2].pk, rows[3].pk]


def test_choosing_merge_lands_on_the_merge_page_of_the_ticked_memories(client_as, rows):
    """The bulk form's merge sends the person to the merge page with each ticked id."""
    client = client_as("editor")
    ticked = [rows[0].pk, rows[3].pk]
    response = client.post(reverse("memories:bulk"), {"ids": ticked, "action": "merge"})
    assert response.status_code == 302
    merge = client.get(response.url)
    assert asked(merge) == {"ids": [str(pk) for pk in ticked]}
    assert [source.pk for source in merge.context["sources"]] == ticked
