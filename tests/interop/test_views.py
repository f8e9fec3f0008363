"""The interop page: stores, runs, sessions against the surface hash, and syncing again."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from memadmin.interop.models import SyncRun, UpstreamStore
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import current_surface_hash
from tests.html_tree import attribute, find, find_all, text, top
from tests.interop.conftest import PROJECT, sha256
from tests.upstream_store import make_row, make_session

pytestmark = pytest.mark.django_db


@pytest.fixture
def synced_store(store):
    path = store(
        rows=[make_row(content="Fact.", category="ODD_ONE")],
        sessions=[make_session(), make_session(session_id="ses_<b>", system_prompt_hash=None)],
    )
    context_db_sync(path=path)
    return path


def test_page_shows_stores_runs_and_differing_sessions(client_as, synced_store):
    """A viewer sees the store, the last run's counts and the sessions off the surface."""
    response = client_as("viewer").get(reverse("interop:index"))
    assert response.status_code == 200
    page = response.content.decode()
    assert str(synced_store.resolve()) in page
    assert "ses_01JX4N7Q8R2M" in page
    assert "ses_&lt;b&gt;" in page and "ses_<b>" not in page
    assert "ODD_ONE (1)" in page
    assert "Sync again" not in page


def test_a_session_on_the_current_surface_is_not_listed(client_as, store):
    """A session whose hash equals the current surface hash counts as on it."""
    path = store(rows=[make_row()], sessions=[make_session(session_id="ses_on")])
    context_db_sync(path=path)
    project = Project.objects.get(identity=PROJECT)
    surface = current_surface_hash(project)
    UpstreamStore.objects.get().sessions.update(system_prompt_hash=surface)
    page = client_as("viewer").get(reverse("interop:index")).content.decode()
    (counts,) = [
        p for p in find_all(find(page, "div", class_="surface-panel"), "p") if find_all(p, "strong")
    ]
    assert text(counts).endswith("1 session: 1 on it, 0 on another.")
    assert text(find(counts, "strong")) == "0"
    assert "ses_on" not in page


def run_worker() -> None:
    """Run the background tasks queued so far, as `manage.py run_worker` does, then return."""
    call_command("run_worker", "--batch")


@pytest.mark.django_db(transaction=True)
def test_an_editor_syncs_again_without_javascript(client_as, synced_store):
    """The plain form queues the sync and redirects back; the worker runs it as "import"."""
    client = client_as("editor")
    store = UpstreamStore.objects.get()
    before = sha256(synced_store)
    response = client.post(reverse("interop:store_sync", args=[store.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("interop:index")
    page = response.content.decode()
    assert "queued" in page
    assert "waiting for the background worker" in page
    assert SyncRun.objects.count() == 1
    run_worker()
    assert SyncRun.objects.count() == 2
    assert SyncRun.objects.latest("id").actor_label == "import"
    page = client.get(reverse("interop:index")).content.decode()
    assert "Syncs under way" not in page
    assert sha256(synced_store) == before


@pytest.mark.django_db(transaction=True)
def test_an_htmx_sync_returns_only_its_section_which_polls(client_as, synced_store):
    """With htmx the section comes back alone and asks for itself until the sync is done."""
    client = client_as("editor")
    store = UpstreamStore.objects.get()
    response = client.post(
        reverse("interop:store_sync", args=[store.pk]), headers={"HX-Request": "true"}
    )
    page = response.content.decode()
    (section,) = top(page)
    assert (section.name, attribute(section, "id")) == ("section", "sync-section")
    assert "<html" not in page
    assert attribute(section, "hx-trigger") == "every 1s"
    assert attribute(section, "hx-get") == reverse("interop:index")
    run_worker()
    page = client.get(reverse("interop:index"), headers={"HX-Request": "true"}).content.decode()
    (section,) = top(page)
    assert (section.name, attribute(section, "id")) == ("section", "sync-section")
    assert "every 1s" not in [attribute(e, "hx-trigger") for e in find_all(page, hx_trigger=True)]
    newest, *_ = find_all(find(find(section, "table", class_="interop-runs"), "tbody"), "tr")
    assert text(find(newest, "td", data_label="Unchanged")) == "1"  # its one unchanged memory


@pytest.mark.django_db(transaction=True)
def test_a_refused_sync_shows_its_problems(client_as, synced_store):
    """When the store went bad, the run lists the problems and nothing is imported."""
    synced_store.write_text("no longer a database")
    client = client_as("editor")
    store = UpstreamStore.objects.get()
    client.post(reverse("interop:store_sync", args=[store.pk]))
    run_worker()
    page = client.get(reverse("interop:index")).content.decode()
    assert "refused" in page
    assert "not an SQLite database" in page
    assert Memory.objects.count() == 1


def test_a_viewer_cannot_sync(client_as, synced_store):
    """Syncing writes memories: it needs the editor role."""
    store = UpstreamStore.objects.get()
    response = client_as("viewer").post(reverse("interop:store_sync", args=[store.pk]))
    assert response.status_code == 403


def test_the_page_without_any_store(client_as):
    """An empty page says how to sync a store."""
    page = client_as("viewer").get(reverse("interop:index")).content.decode()
    assert "No store synced yet" in page
    assert "--context-db" in page
