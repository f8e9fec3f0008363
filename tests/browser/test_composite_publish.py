"""Publishing composites in a browser: the toggle, and a composite edit appearing in the store."""

import pytest

from memadmin.composites.services import composite_create
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.interop.composites.test_composite_publish import store_composites, tables
from tests.upstream_store import build_store, make_row

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_publish_then_move_a_member_and_see_it_in_the_store(logged_in_page, live_server, tmp_path):
    """A curator publishes on the Import/export page; moving a member reaches the store."""
    path = build_store(
        tmp_path / "context.db",
        rows=[make_row(content=f"Step {n}.") for n in range(1, 5)],
    )
    context_db_sync(path=path)
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite = composite_create(
        head=memories[1], type="sequence", members=[memories[2], memories[3]], actor="agent"
    )
    page = logged_in_page("curator")
    page.goto(f"{live_server.url}/interop/")
    page.click("button:has-text('Publish composites')")
    page.locator("#composites-section strong", has_text="published").wait_for()
    assert {"composites", "composite_members"} <= tables(path)
    assert store_composites(path) == [("sequence", 1, 0, [2, 3])]
    page.goto(f"{live_server.url}/composites/{composite.pk}/")
    page.click(f"button[aria-label='Move #{memories[2].display_id} down']")
    page.locator(".member-list li").first.filter(has_text="Step 3.").wait_for()
    assert store_composites(path) == [("sequence", 1, 1, [3, 2])]
