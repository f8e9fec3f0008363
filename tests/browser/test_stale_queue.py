"""The stale-header queue in a browser: marking synced swaps the card and the navigation count."""

import pytest

from memadmin.composites.services import composite_member_add
from memadmin.headermap.stale_services import header_mark_synced
from memadmin.memories.services import memory_create
from tests.headermap.stale_fixtures import T0, make_release

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def joined(project):
    """A synced header whose sequence an unchanged memory joined afterwards."""
    release = make_release(project)
    notes = memory_create(
        project=project, category="OPS_RULES", content="Write notes.", actor="agent", at_ms=T0
    )
    header_mark_synced(header=release["header"], actor="dreamer", at_ms=T0 + 120_000)
    composite_member_add(
        composite=release["header"].headed_composites.get(),
        members=[notes],
        actor="historian",
        reason="the notes are a step now",
        at_ms=T0 + 180_000,
    )
    return {**release, "notes": notes}


def test_marking_a_membership_change_synced_swaps_in_place(logged_in_page, live_server, joined):
    """The join is listed; "Mark synced" replaces the card and empties the count, no reload."""
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/map/stale/")
    card = page.locator(f"#stale-{joined['header'].pk}")
    card.locator("text=joined the sequence").wait_for()
    assert page.locator("#stale-count .nav-count").inner_text().startswith("1")
    page.evaluate("window.__marker = 'still here'")
    card.locator("button:has-text('Mark synced')").click()
    page.locator(f"#stale-{joined['header'].pk}.synced").wait_for()
    assert page.locator("#stale-count .nav-count").count() == 0
    assert page.evaluate("window.__marker") == "still here"
