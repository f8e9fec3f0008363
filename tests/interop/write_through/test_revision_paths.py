"""Every write path carries the store revisions its page read (lifecycle stores).

The agent can raise a row's ``revision`` without changing a value memadmin shows; a merge,
a revert, an archive, a bulk action, a curation archive or an admin change made from a page
read before that is refused with nothing written on either side, and the page then carries
the revisions now stored. The edit page is covered by ``test_revision_version.py``.
"""

import pytest
from django.urls import reverse

from memadmin.core.contextdb.writing import read_revisions
from memadmin.interop.write_through.store_writes import GATEWAY
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.html_tree import find, posted
from tests.interop.write_through.test_store_writes import store_exec, store_query, store_row, synced
from tests.lifecycle_store import add_lifecycle
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def lifecycle_store(store):
    path = add_lifecycle(
        store(
            rows=[
                make_row(content="Deploys need the VPN.", category="CONSTRAINTS"),
                make_row(content="VPN before every deploy.", category="CONSTRAINTS"),
            ],
            sessions=[],
        )
    )
    context_db_sync(path=path)
    GATEWAY._probes.clear()
    return path


def agent_bumps_revision(path, row_id: int) -> None:
    store_exec(path, "UPDATE memories SET revision = revision + 1 WHERE id = ?", (row_id,))


def untouched(path) -> None:
    """Nothing of the refused write reached the store."""
    assert store_query(path, "SELECT count(*) FROM memory_history") == [(0,)]
    assert [store_row(path, i)["status"] for i in (1, 2)] == ["active", "active"]


def form_of(page: str, action: str) -> dict:
    return posted(find(page, "form", action=action))


def test_the_store_revisions_are_read_in_one_go(lifecycle_store):
    """`read_revisions` gives each row's revision (none for an unknown id)."""
    import sqlite3

    agent_bumps_revision(lifecycle_store, 2)
    connection = sqlite3.connect(lifecycle_store)
    try:
        assert read_revisions(connection, [1, 2, 99]) == {1: 1, 2: 2}
    finally:
        connection.close()


def test_a_merge_from_before_a_revision_bump_is_refused(client_as, lifecycle_store):
    """The merge page carries both sources' revisions; the agent bumps one; the merge is
    refused (409) with nothing written, and merging again from the page then goes through."""
    client = client_as("editor")
    ids = [synced(1).pk, synced(2).pk]
    url = reverse("memories:merge") + f"?ids={ids[0]}&ids={ids[1]}"
    page = client.get(url).content.decode()
    data = form_of(page, reverse("memories:merge"))
    assert data["store_revisions"] == f"{ids[0]}:1 {ids[1]}:1"
    agent_bumps_revision(lifecycle_store, 2)
    data.update(content="VPN before every deploy, always.", reason="one rule")
    response = client.post(reverse("memories:merge"), data)
    assert response.status_code == 409
    assert "revision 2" in response.content.decode()
    untouched(lifecycle_store)
    assert Memory.objects.filter(project=synced(1).project).count() == 2
    again = form_of(response.content.decode(), reverse("memories:merge"))
    assert again["store_revisions"] == f"{ids[0]}:1 {ids[1]}:2"
    again.update(content="VPN before every deploy, always.", reason="one rule")
    assert client.post(reverse("memories:merge"), again).status_code == 302
    assert store_row(lifecycle_store, 2)["status"] == "archived"


def revert_forms(page: str, memory) -> list[dict]:
    from tests.html_tree import find_all

    action = reverse("audit:memory_revert", args=[memory.pk])
    return [posted(form) for form in find_all(page, "form", action=action)]


def test_a_revert_from_before_a_revision_bump_is_refused(client_as, lifecycle_store, people):
    """The history page's revert carries the row's store revision; the agent bumps it; the
    revert is refused (409), nothing written; reverting again from the page goes through."""
    from memadmin.memories.services import memory_update

    memory_update(memory=synced(1), actor=people["editor"], content="Deploys need the new VPN.")
    client = client_as("editor")
    history_url = reverse("audit:memory_history", args=[synced(1).pk])
    forms = revert_forms(client.get(history_url).content.decode(), synced(1))
    oldest = min(forms, key=lambda data: int(data["version"]))
    assert oldest["store_revisions"] == f"{synced(1).pk}:2"
    agent_bumps_revision(lifecycle_store, 1)
    oldest["reason"] = "back"
    response = client.post(reverse("audit:memory_revert", args=[synced(1).pk]), oldest)
    assert response.status_code == 409
    assert "revision 3" in response.content.decode()
    assert store_row(lifecycle_store, 1)["content"] == "Deploys need the new VPN."
    assert store_query(lifecycle_store, "SELECT count(*) FROM memory_history") == [(1,)]
    again = next(
        data
        for data in revert_forms(response.content.decode(), synced(1))
        if data["version"] == oldest["version"]
    )
    assert again["store_revisions"] == f"{synced(1).pk}:3"
    again["reason"] = "back"
    response = client.post(reverse("audit:memory_revert", args=[synced(1).pk]), again)
    assert response.status_code == 302
    assert store_row(lifecycle_store, 1)["content"] == "Deploys need the VPN."


def test_a_curation_archive_from_before_a_revision_bump_is_refused(client_as, lifecycle_store):
    """The near-duplicate archive page carries the row's store revision; the agent bumps
    it; archiving is refused (409), nothing written; archiving again goes through."""
    client = client_as("curator")
    url = reverse("curation:archive", args=[synced(2).pk])
    page = client.get(url + f"?keep={synced(1).pk}").content.decode()
    data = form_of(page, url)
    assert data["store_revisions"] == f"{synced(2).pk}:1"
    agent_bumps_revision(lifecycle_store, 2)
    data["reason"] = "same rule"
    response = client.post(url, data)
    assert response.status_code == 409
    assert "revision 2" in response.content.decode()
    untouched(lifecycle_store)
    assert synced(2).status == "active"
    again = form_of(response.content.decode(), url)
    assert again["store_revisions"] == f"{synced(2).pk}:2"
    again["reason"] = "same rule"
    assert client.post(url, again).status_code == 302
    assert store_row(lifecycle_store, 2)["status"] == "archived"


def test_a_bulk_archive_from_before_a_revision_bump_is_refused(client_as, lifecycle_store):
    """The bulk review carries each row's store revision; the agent bumps one; confirming
    is refused (409) with nothing written; the review shown again then goes through."""
    client = client_as("editor")
    ids = [synced(1).pk, synced(2).pk]
    review = client.post(
        reverse("memories:bulk"), {"ids": ids, "action": "archive", "next": "/memories/"}
    ).content.decode()
    data = form_of(review, reverse("memories:bulk"))
    assert data["store_revisions"] == f"{ids[0]}:1 {ids[1]}:1"
    agent_bumps_revision(lifecycle_store, 1)
    data.update(confirm="1", reason="old rules")
    response = client.post(reverse("memories:bulk"), data)
    assert response.status_code == 409
    assert "revision 2" in response.content.decode()
    untouched(lifecycle_store)
    again = form_of(response.content.decode(), reverse("memories:bulk"))
    assert again["store_revisions"] == f"{ids[0]}:2 {ids[1]}:1"
    again.update(confirm="1", reason="old rules")
    assert client.post(reverse("memories:bulk"), again).status_code == 302
    assert [store_row(lifecycle_store, i)["status"] for i in (1, 2)] == ["archived", "archived"]


def admin_form(client, memory) -> tuple[str, dict]:
    url = reverse("admin:memories_memory_change", args=[memory.pk])
    page = client.get(url).content.decode()
    return url, posted(find(page, "form", id="memory_form"))


def test_an_admin_save_writes_the_store_once(client_as, lifecycle_store):
    """A change in the admin reaches the store once: one history row, revision 2."""
    client = client_as("admin")
    url, data = admin_form(client, synced(1))
    data.update(content="Deploys need the new VPN.", reason="new VPN", _save="Save")
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert store_row(lifecycle_store, 1)["content"] == "Deploys need the new VPN."
    assert store_row(lifecycle_store, 1)["revision"] == 2
    assert store_query(lifecycle_store, "SELECT count(*) FROM memory_history") == [(1,)]


def test_an_admin_save_from_before_a_revision_bump_is_refused(client_as, lifecycle_store):
    """The admin's change form carries the row's store revision; the agent bumps it; the
    save is refused on the form, nothing written; saving again goes through."""
    client = client_as("admin")
    url, data = admin_form(client, synced(1))
    assert data["store_revisions"] == f"{synced(1).pk}:1"
    agent_bumps_revision(lifecycle_store, 1)
    data.update(content="Deploys need the new VPN.", reason="new VPN", _save="Save")
    response = client.post(url, data)
    assert response.status_code == 200
    assert "revision 2" in response.content.decode()
    untouched(lifecycle_store)
    assert store_row(lifecycle_store, 1)["content"] == "Deploys need the VPN."
    again = posted(find(response.content.decode(), "form", id="memory_form"))
    assert again["store_revisions"] == f"{synced(1).pk}:2"
    again.update(_save="Save")
    assert client.post(url, again).status_code == 302
    assert store_row(lifecycle_store, 1)["revision"] == 3
