"""The pages people curate with cost the same queries, as a viewer and as an editor, at any size.

Each page is opened on a store, then again after the store grew several times over
(memories, composites, members, edits): its number of queries must not change, for either
role, and stays under a small bound.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.composites.services import composite_create
from memadmin.headermap.stale_selectors import count_stale_headers, stale_header_count
from memadmin.memories.services import memory_create, memory_update

pytestmark = pytest.mark.django_db
# The memory page is the dearest: its composites, injection line, related memories and the
# store's banner each read a little (19 queries as merged; flat in the store's size).
MOST = 20


def pages(project, memory, composite) -> list[str]:
    pk = project.pk
    return [
        "/memories/",
        f"/memories/?project={pk}",
        "/memories/?q=deploy",
        "/memories/?sort=-importance",
        f"/memories/{memory.pk}/",
        f"/map/?project={pk}",
        f"/ledger/{pk}/?counter=heuristic",
        f"/composites/?project={pk}",
        f"/composites/{composite.pk}/",
        f"/map/stale/?project={pk}",
        f"/criteria/?project={pk}",
        "/history/",
        f"/history/memories/{memory.pk}/",
    ]


def grow(project, hub, count: int, start: int) -> None:
    """Add `count` memories in composites of three, the hub a member of each, one edited."""
    made = [
        memory_create(
            project=project, category="OPS_RULES", content=f"Deploy fact {n}.", actor="agent"
        )
        for n in range(start, start + count)
    ]
    for at in range(0, len(made) - 2, 3):
        composite_create(
            head=made[at], type="theme", members=[made[at + 1], made[at + 2], hub], actor="agent"
        )
    memory_update(memory=made[1], actor="agent", content=f"Deploy fact {start}, edited.")


def counts(client, urls) -> dict[str, int]:
    found = {}
    for url in urls:
        client.get(url)  # as a second visit: what a process keeps is kept
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200, url
        found[url] = len(captured)
    return found


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_query_counts_do_not_grow_with_the_store(role, project, client_as):
    """Every page, second visit: the same queries with 6 memories as with 60."""
    hub = memory_create(project=project, category="OPS_RULES", content="Deploy hub.", actor="agent")
    grow(project, hub, 6, 0)
    composite = project.composites.order_by("pk").first()
    urls = pages(project, hub, composite)
    client = client_as(role)
    small = counts(client, urls)
    grow(project, hub, 54, 6)
    large = counts(client, urls)
    assert large == small
    assert max(large.values()) <= MOST, large


def test_the_stale_count_after_a_write_costs_the_same_queries_at_any_size(project):
    """The navigation's stale count right after an edit: two queries with 6 memories or 60.

    The markers; the headers the edit touched (the hub is a detail of every composite) with
    those of them stale now. No walk over the whole store.
    """
    hub = memory_create(project=project, category="OPS_RULES", content="Deploy hub.", actor="agent")
    grow(project, hub, 6, 0)

    def after_a_write(importance: int) -> tuple[int, int]:
        stale_header_count()
        memory_update(memory=hub, actor="agent", importance=importance)
        with CaptureQueriesContext(connection) as captured:
            count = stale_header_count()
        assert count == count_stale_headers()
        return count, len(captured)

    small = after_a_write(60)
    grow(project, hub, 54, 6)
    large = after_a_write(70)
    assert small == (2, 2) and large == (20, 2)
