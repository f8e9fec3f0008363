"""The version a memory's edit page carries includes the store row's revision (issue 26).

On a lifecycle store the agent can bump ``revision`` without changing a value memadmin shows;
a save from a page loaded before that bump is refused with nothing written, whether or not a
sync ran in between, and the refusal carries the revision now stored.
"""

import re

import pytest
from django.urls import reverse

from memadmin.interop.write_through.store_writes import GATEWAY
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.services import memory_update
from memadmin.projects.store import StoreRowChanged
from tests.interop.write_through.test_store_writes import store_exec, store_query, store_row, synced
from tests.lifecycle_store import add_lifecycle
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def lifecycle_store(store):
    path = add_lifecycle(store(rows=[make_row(content="Use the VPN.")], sessions=[]))
    context_db_sync(path=path)
    GATEWAY._probes.clear()
    return path


def page_form(client, memory) -> dict:
    """Return the edit page's hidden versions, as a browser would post them back."""
    page = client.get(reverse("memories:edit", args=[memory.pk])).content.decode()
    found = {}
    for name in ("expected_updated_at", "expected_revision"):
        match = re.search(rf'name="{name}"(?: value="([^"]*)")?', page)
        assert match, name
        found[name] = match.group(1) or ""
    return found


def post_edit(client, memory, versions: dict, content: str):
    return client.post(
        reverse("memories:edit", args=[memory.pk]),
        {
            "content": content,
            "category": memory.category,
            "importance": memory.importance,
            "scope": memory.scope,
            "status": memory.status,
            **versions,
        },
    )


def agent_bumps_revision(path) -> None:
    store_exec(path, "UPDATE memories SET revision = revision + 1 WHERE id = 1")


@pytest.mark.parametrize("sync_between", [False, True], ids=["no-sync", "synced-between"])
def test_a_save_from_before_a_revision_bump_is_refused(client_as, lifecycle_store, sync_between):
    """The page carries revision 1; the agent bumps it to 2 without a text change; the save
    is refused with nothing written on either side, and the form then carries revision 2."""
    client = client_as("editor")
    versions = page_form(client, synced(1))
    assert versions["expected_revision"] == "1"
    agent_bumps_revision(lifecycle_store)
    if sync_between:
        context_db_sync(path=lifecycle_store)
    response = post_edit(client, synced(1), versions, "Use the new VPN.")
    assert response.status_code == 400
    page = response.content.decode()
    assert "revision 2" in page
    assert 'name="expected_revision" value="2"' in page
    row = store_row(lifecycle_store, 1)
    assert (row["content"], row["revision"]) == ("Use the VPN.", 2)
    assert store_query(lifecycle_store, "SELECT count(*) FROM memory_history") == [(0,)]
    assert synced(1).content == "Use the VPN."
    again = re.search(r'name="expected_updated_at" value="(\d+)"', page).group(1)
    response = post_edit(
        client,
        synced(1),
        {"expected_updated_at": again, "expected_revision": "2"},
        "Use the new VPN.",
    )
    assert response.status_code == 302
    assert store_row(lifecycle_store, 1)["revision"] == 3


def test_a_page_of_the_current_revision_saves(client_as, lifecycle_store):
    """Without a bump in between, the save reaches the store and raises the revision."""
    client = client_as("editor")
    response = post_edit(client, synced(1), page_form(client, synced(1)), "Use the new VPN.")
    assert response.status_code == 302
    assert store_row(lifecycle_store, 1)["revision"] == 2


def test_the_service_refuses_a_moved_revision(lifecycle_store, people):
    """`memory_update(expected_revision=...)` refuses a store row at another revision."""
    agent_bumps_revision(lifecycle_store)
    with pytest.raises(StoreRowChanged, match="revision 2"):
        memory_update(memory=synced(1), actor=people["editor"], content="New.", expected_revision=1)
    assert store_row(lifecycle_store, 1)["content"] == "Use the VPN."


def test_a_store_without_revisions_carries_none_and_saves(client_as, store):
    """A store without `memories.revision`: the page carries no revision and saves as before."""
    path = store(rows=[make_row(content="Use the VPN.")], sessions=[])
    context_db_sync(path=path)
    client = client_as("editor")
    versions = page_form(client, synced(1))
    assert versions["expected_revision"] == ""
    assert post_edit(client, synced(1), versions, "Use the new VPN.").status_code == 302
    assert store_row(path, 1)["content"] == "Use the new VPN."
