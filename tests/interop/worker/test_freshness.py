"""The Import/export page and the overview say when each store was last read, and warn in
words when that is longer ago than the worker's refresh would allow."""

import pytest
from django.urls import reverse

from memadmin.core.clock import now_ms
from memadmin.interop.models import StoreWatermark, UpstreamStore
from memadmin.interop.worker.freshness import STALE_AFTER_MS
from memadmin.interop.worker.leases import lease_renew
from memadmin.interop.writing.services import context_db_sync
from tests.html_tree import find_all, text
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db

PAGES = ["interop:index", "home"]


@pytest.fixture
def synced_store(store):
    path = store(rows=[make_row(content="Fact.")])
    context_db_sync(path=path)
    return UpstreamStore.objects.get()


def _read_ago(store: UpstreamStore, ms: int) -> None:
    at = now_ms() - ms
    UpstreamStore.objects.filter(pk=store.pk).update(last_synced_at=at)
    StoreWatermark.objects.filter(store=store).update(checked_at=at)


def _warnings(page: str) -> list[str]:
    return [text(node) for node in find_all(page, class_="stale-store")]


@pytest.mark.parametrize("name", PAGES)
def test_a_store_not_read_for_ten_minutes_is_warned_of(client_as, synced_store, name):
    """Ten minutes without a read, with no worker: the page says so and what to do."""
    _read_ago(synced_store, 10 * 60 * 1000)
    page = client_as("viewer").get(reverse(name)).content.decode()
    (warning,) = _warnings(page)
    assert f"memadmin last read {synced_store.path} at " in warning
    assert "(10 minutes ago)" in warning
    assert "the agent's changes since then may be missing here" in warning
    assert "No background worker is running" in warning


@pytest.mark.parametrize("name", PAGES)
def test_a_stale_store_with_a_live_worker_says_the_worker_runs(client_as, synced_store, name):
    """With a worker's lease held, the warning says the worker runs and where to look."""
    _read_ago(synced_store, STALE_AFTER_MS + 60_000)
    lease_renew("test-worker")
    page = client_as("viewer").get(reverse(name)).content.decode()
    (warning,) = _warnings(page)
    assert "The worker is running" in warning


@pytest.mark.parametrize("name", PAGES)
def test_a_store_read_seconds_ago_has_no_warning(client_as, synced_store, name):
    """A store read a few seconds ago is shown without a warning."""
    _read_ago(synced_store, 5_000)
    page = client_as("viewer").get(reverse(name)).content.decode()
    assert _warnings(page) == []


def test_the_overview_says_when_each_store_was_last_read(client_as, synced_store):
    """The overview names each store and when it was last read."""
    _read_ago(synced_store, 5_000)
    page = client_as("viewer").get(reverse("home")).content.decode()
    (line,) = [text(item) for item in find_all(page, "li") if "last read" in text(item)]
    assert line.startswith(f"Store {synced_store.path} last read ")
    assert line.endswith("(0 minutes ago).")
