"""A sync started from the Import/export page in a browser: queued at once, then its outcome.

The page never waits for the sync. The section shows the sync waiting for the worker and
asks for itself every second; once the worker has run it, the section shows the new run and
stops asking, all without a reload.
"""

import pytest
from django.core.management import call_command

from memadmin.interop.models import SyncRun
from memadmin.interop.writing.services import context_db_sync
from tests.interop.conftest import rows_for
from tests.upstream_store import build_store

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_queued_sync_shows_progress_then_its_run_without_a_reload(
    logged_in_page, live_server, tmp_path
):
    """Clicking "Sync again" returns at once; the outcome appears when the worker is done."""
    context_db_sync(path=build_store(tmp_path / "context.db", rows=rows_for(3)))
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/interop/")
    page.evaluate("window.__marker = 'still here'")
    page.locator("button:has-text('Sync again')").click()
    page.locator("#sync-section >> text=waiting for the background worker").wait_for()
    assert SyncRun.objects.count() == 1
    call_command("run_worker", "--batch")
    page.locator("#sync-section >> text=Syncs under way").wait_for(state="detached", timeout=10_000)
    assert page.locator("#sync-section .interop-runs tbody tr").count() == 2
    assert page.evaluate("window.__marker") == "still here"
