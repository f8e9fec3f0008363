"""The Structure page in a browser: reached from the navigation, it leads to the fragment
tool, whose preview leaves a title heading to the header while the summary repeats it."""

import pytest
from playwright.sync_api import expect

from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAILOVER = (
    "# Failover of the primary database\n\n"
    "1. Stop writes: set the service read-only, then wait for the replica to catch up fully.\n"
    "2. Promote the replica with pg_ctl promote, and check that it accepts writes again.\n"
    "3. Point the service at the new primary, lift read-only, and watch the error rate."
)


@pytest.fixture
def failover(project):
    return memory_create(project=project, category="OPS_RULES", content=FAILOVER, actor="agent")


def first_detail(page) -> str:
    return page.locator("#split-section .fragment-text").first.inner_text()


def test_from_the_navigation_to_a_split_without_the_title(logged_in_page, live_server, failover):
    """Structure → the project → Fragment…: Structure stays highlighted, and detail 1 is step
    1; a summary that says something else keeps the heading in detail 1 at the next preview."""
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Structure").click()
    page.get_by_role("link", name="Ops", exact=True).click()
    expect(page.locator("h1")).to_have_text("Structure of Ops")
    page.get_by_role("link", name=f"Fragment #{failover.display_id}…").click()
    page.wait_for_url(f"**/structure/fragment/{failover.pk}/")
    expect(page.locator("nav a[aria-current=page]")).to_have_text("Structure")
    assert first_detail(page).startswith("1. Stop writes")
    expect(page.locator(".fragment-title-note")).to_be_visible()
    page.fill("#id_summary", "Database runbook")
    page.select_option("#split-by", "items")
    expect(page.locator(".fragment-title-note")).to_have_count(0)
    assert first_detail(page).startswith("# Failover of the primary database")


def test_the_structure_page_fits_a_phone(logged_in_page, live_server, project, failover, page):
    """At 390 px the candidates are cards, with no sideways scroll."""
    page.set_viewport_size({"width": 390, "height": 844})
    logged_in_page("viewer")
    page.goto(f"{live_server.url}/structure/{project.pk}/")
    expect(page.locator("table.fragment-candidates tbody tr")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    expect(page.get_by_text("Fragmenting one needs the editor role.")).to_be_visible()
