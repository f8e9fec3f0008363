"""The memory page's composites section: both query paths, in constant queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memadmin.composites.selectors import memory_composites
from memadmin.composites.services import composite_create
from memadmin.ledger.prepared_cache import prepared_projects
from tests.html_tree import find, find_all, links, text

pytestmark = pytest.mark.django_db


def test_both_query_paths_from_a_memory(steps):
    """A memory lists the composites it heads, and those it belongs to with their head."""
    head, a, b, c, *_ = steps
    composite_create(head=head, type="sequence", members=[a, b], actor="agent")
    composite_create(head=head, type="theme", members=[c], actor="agent")
    composite_create(head=c, type="cause", members=[b, a], actor="agent")
    assert [x.type for x in memory_composites(head)["headed"]] == ["sequence", "theme"]
    member_of = memory_composites(b)["member_of"]
    assert [(m.composite.type, m.position, m.composite.head_id) for m in member_of] == [
        ("cause", 0, c.pk),
        ("sequence", 1, head.pk),
    ]
    assert [m.size for m in member_of] == [2, 2]


@pytest.mark.parametrize("count", [1, 4])
def test_query_count_does_not_grow_with_composites(
    steps, make_memories, count, django_assert_max_num_queries
):
    """Three queries whatever the number of composites a memory touches."""
    head, member, *others = steps
    extra = make_memories(count)
    for memory in extra:
        composite_create(head=head, type="theme", members=[member, memory], actor="agent")
        composite_create(head=memory, type="sequence", members=[member, *others], actor="agent")
    with django_assert_max_num_queries(3):
        paths = memory_composites(head)
        for composite in paths["headed"]:
            assert composite.head.content
            for row in composite.members.all():
                assert row.member.content
    with django_assert_max_num_queries(3):
        for membership in memory_composites(member)["member_of"]:
            assert membership.composite.head.content


def test_memory_page_query_count_is_constant(client_as, steps, make_memories):
    """The memory page costs the same with one or five composites around the memory."""
    client = client_as("viewer")
    head, member, *others = steps

    def queries_for(memory) -> int:
        # The injection line reads the project through the process's prepared store: start
        # each count with none, so both counts take the same path.
        prepared_projects.clear()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("memories:detail", args=[memory.pk])).status_code == 200
        return len(captured)

    def add_composites(count: int) -> None:
        for memory in make_memories(count):
            composite_create(head=head, type="theme", members=[member, memory], actor="agent")
            composite_create(head=memory, type="sequence", members=[member, *others], actor="agent")

    add_composites(1)
    before = (queries_for(head), queries_for(member))
    add_composites(4)
    assert (queries_for(head), queries_for(member)) == before


def test_memory_page_shows_both_paths_and_a_way_back_to_the_head(client_as, steps):
    """A member's page links to each composite and its head, with its step."""
    head, a, b, *_ = steps
    composite = composite_create(head=head, type="sequence", members=[a, b], actor="agent")
    body = client_as("viewer").get(reverse("memories:detail", args=[b.pk])).content.decode()
    section = find(body, "section", class_="memory-composites")
    (membership,) = find_all(find(section, "ul"), "li")
    assert links(membership) == [
        (composite.type, reverse("composites:detail", args=[composite.pk])),
        (f"#{head.display_id}", reverse("memories:detail", args=[head.pk])),
    ]
    assert "step 2 of 2, headed by" in text(membership)
    body = client_as("editor").get(reverse("memories:detail", args=[head.pk])).content.decode()
    section = find(body, "section", class_="memory-composites")
    assert [text(heading) for heading in find_all(section, "h3")] == ["Heads 1", "Member of 0"]
    (card,) = find_all(section, "li", class_="composite-card")
    assert len(find_all(find(card, "span", class_="thumb"), "svg")) == 1
    assert (text(find(card, "span", class_="card-title")), links(card)[0][1]) == (
        composite.type,
        reverse("composites:detail", args=[composite.pk]),
    )
    assert links(section)[-1] == (
        "New composite headed by this memory",
        f"{reverse('composites:create')}?head={head.pk}",
    )
