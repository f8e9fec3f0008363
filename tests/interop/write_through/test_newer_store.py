"""A store whose schema is newer than memadmin was tested with is served read-only."""

import pytest
from django.urls import reverse

from memadmin.core.contextdb import StoreError, write_store_meta
from memadmin.core.contextdb.write_checks import NEWEST_TESTED_SCHEMA
from memadmin.interop.write_through.store_writes import GATEWAY
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.services import memory_update
from memadmin.projects.store import StoreRefused
from tests.interop.conftest import sha256
from tests.interop.write_through.test_store_writes import store_query, store_row, synced
from tests.lifecycle_store import add_lifecycle, set_schema_version
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db

NEWER = NEWEST_TESTED_SCHEMA + 1


@pytest.fixture
def newer_store(store):
    """A lifecycle store at schema v101, synced while it was still v100."""
    path = add_lifecycle(store(rows=[make_row(content="Use the VPN.")], sessions=[], wal=False))
    context_db_sync(path=path)
    set_schema_version(path, NEWER)
    GATEWAY._probes.clear()
    return path


def test_a_newer_schema_refuses_every_write_and_says_why(newer_store, people):
    """An edit is refused as read-only, naming the version; neither side changes."""
    before = sha256(newer_store)
    with pytest.raises(StoreRefused, match=f"schema is version {NEWER}") as refused:
        memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
    assert refused.value.read_only
    assert sha256(newer_store) == before
    assert store_row(newer_store, 1)["content"] == "Use the VPN."
    assert synced(1).content == "Use the VPN."
    assert store_query(newer_store, "SELECT count(*) FROM memory_history") == [(0,)]


def test_the_version_and_reason_are_on_the_projects_pages(client_as, newer_store):
    """The memory page, its edit page and the list carry the version and why."""
    client = client_as("editor")
    for url in (
        reverse("memories:detail", args=[synced(1).pk]),
        reverse("memories:edit", args=[synced(1).pk]),
        reverse("memories:list") + f"?project={synced(1).project_id}",
    ):
        page = client.get(url).content.decode()
        assert "is read-only:" in page, url
        assert f"its schema is version {NEWER}, newer than the newest memadmin" in page, url


def test_the_store_meta_writer_refuses_a_newer_schema(newer_store, tmp_path):
    """Criteria exported to the store's meta table are refused too, with nothing written."""
    before = sha256(newer_store)
    with pytest.raises(StoreError, match=f"version {NEWER}"):
        write_store_meta(newer_store, {"memadmin.criteria": "{}"}, backup_dir=tmp_path / "b")
    assert sha256(newer_store) == before


def test_the_newest_tested_schema_is_written(store, people):
    """A store at exactly the newest tested version takes the edit."""
    path = add_lifecycle(store(rows=[make_row(content="Use the VPN.")], sessions=[]))
    context_db_sync(path=path)
    GATEWAY._probes.clear()
    assert GATEWAY.read_only_reason(synced(1).project) == ""
    memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
    assert store_row(path, 1)["content"] == "Use the new VPN."


def test_every_page_names_a_newer_store_without_a_query(newer_store, client_as):
    """A page without a project (the overview) names the store, its version and why; once
    the process knows, the notice costs no query."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memadmin.interop.context_processors import newer_stores_notice
    from memadmin.interop.write_through.newer_stores import newer_forget

    newer_forget()
    page = client_as("viewer").get(reverse("home")).content.decode()
    assert "store-too-new" in page
    assert f"schema is version {NEWER}" in page and str(newer_store) in page
    request = client_as("viewer").get(reverse("home")).wsgi_request
    with CaptureQueriesContext(connection) as queries:
        notice = newer_stores_notice(request)
    assert len(queries) == 0
    assert notice["newer_stores"][0][0] == str(newer_store)


def test_a_store_brought_back_to_a_known_version_loses_the_notice(newer_store, client_as):
    """The next check of the stores clears a store no longer newer than known."""
    from memadmin.interop.write_through.newer_stores import newer_forget, newer_stores

    newer_forget()
    assert newer_stores()
    from tests.interop.write_through.test_store_writes import store_exec

    store_exec(newer_store, "DELETE FROM schema_migrations WHERE version > 100")
    newer_forget()
    assert newer_stores() == []
    page = client_as("viewer").get(reverse("home")).content.decode()
    assert "store-too-new" not in page
