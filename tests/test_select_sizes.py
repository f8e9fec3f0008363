"""No page lists the store in a control: every select of every page stays short.

The walk opens every URL pattern (as test_url_permissions builds them) with GET, as an editor
and as an admin, on a store holding more memories and composites than a select may list,
and one composite with more members than that; no select may list more than SELECT_LIMIT
options. Composites and memories are picked with the search-as-you-type picker instead.
"""

import pytest

from memadmin.composites.reference_services import reference_set_freeze
from memadmin.composites.services import composite_create
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.picker import SELECT_LIMIT
from memadmin.memories.services import memory_create
from tests.html_tree import attribute, find, find_all
from tests.test_url_permissions import build_path, url_patterns
from tests.upstream_store import build_store, make_row

pytestmark = pytest.mark.django_db
MORE = SELECT_LIMIT + 5


def select_sizes(page: str) -> list[tuple[str, int]]:
    """Count the options of each select of a page, by the select's id or name."""
    return [
        (
            attribute(select, "id") or attribute(select, "name") or f"select {n}",
            len(find_all(select, "option")),
        )
        for n, select in enumerate(find_all(page, "select"))
    ]


@pytest.fixture
def big_world(project, people, tmp_path):
    """A project with more memories and composites than a select may list."""
    memories = [
        memory_create(project=project, category="OPS_RULES", content=f"Fact {n}.", actor="agent")
        for n in range(MORE)
    ]
    composites = [
        composite_create(head=memories[n], type="theme", members=[memories[n + 1]], actor="agent")
        for n in range(MORE - 1)
    ]
    long_one = composite_create(
        head=memories[-1], type="sequence", members=memories[:-1], actor="agent"
    )
    synced = context_db_sync(path=build_store(tmp_path / "context.db", rows=[make_row()]))
    return {
        "upstream_store": synced.store,
        "project": project,
        "memory": memories[0],
        "member": memories[1],
        "composite": long_one,
        "reference_set": reference_set_freeze(composite=composites[0], actor="agent"),
        "people": people,
    }


def test_no_page_renders_a_select_longer_than_the_limit(big_world, client, people):
    """Every page, as an editor and as an admin, lists at most SELECT_LIMIT options a select."""
    paths = {
        build_path(patterns, area, entry, big_world) for patterns, area, entry in url_patterns()
    }
    assert len(paths) > 40  # the walk found the dashboard's pages
    opened = 0
    for role in ("editor", "admin"):
        client.force_login(people[role])
        for path in sorted(paths):
            response = client.get(path)
            if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
                continue
            opened += 1
            sizes = select_sizes(response.content.decode())
            too_long = {name: n for name, n in sizes if n > SELECT_LIMIT}
            assert not too_long, f"{path} as {role} lists {too_long} options"
    assert opened > 40


def test_the_memory_list_has_a_composite_picker_not_a_select(big_world, client_as):
    """The bulk bar names the composite in a text field answered by the composite picker."""
    body = client_as("editor").get("/memories/").content.decode()
    bar = find(body, "form", id="bulk-form")
    assert find(bar, "input", type="text", id="bulk-composite", hx_get="/composites/pick/")
    assert find_all(body, "select", id="bulk-composite") == []
