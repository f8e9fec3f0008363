"""In a real browser, Save on an OPS_RULES memory's untouched edit form keeps OPS_RULES.

Issue 26: the form offered no OPS_RULES choice, so Chromium posted the first one and the
memory, its store row and its history all said "OPS_RULES -> PROJECT_RULES".
"""

import pytest

from memadmin.audit.models import AuditEvent
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.interop.write_through.test_store_writes import log_rows, store_row
from tests.upstream_store import build_store, make_row

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_save_on_an_untouched_ops_rules_memory_changes_nothing(
    logged_in_page, live_server, tmp_path
):
    """The select shows OPS_RULES, labelled outside the pack; Save writes nothing anywhere."""
    path = build_store(
        tmp_path / "context.db", rows=[make_row(content="Restart the queue.", category="OPS_RULES")]
    )
    context_db_sync(path=path)
    memory = Memory.objects.get(upstream_id=1)
    row, versions, events = store_row(path, 1), memory.history.count(), AuditEvent.objects.count()
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/{memory.pk}/edit/")
    selected = page.locator("#id_category option:checked")
    assert selected.inner_text() == "OPS_RULES (not in this project's pack)"
    page.click("button:has-text('Save')")
    page.wait_for_url(f"{live_server.url}/memories/{memory.pk}/")
    memory.refresh_from_db()
    assert memory.category == "OPS_RULES"
    assert store_row(path, 1) == row
    assert log_rows(path) == []
    assert (memory.history.count(), AuditEvent.objects.count()) == (versions, events)
