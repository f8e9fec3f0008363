"""The overview in a browser: `/` shows each project, and its chart leads to the list."""

import pytest

from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_overview_is_the_first_page_and_its_bars_open_the_list(
    logged_in_page, live_server, project
):
    """`/` shows the overview; a category's bar opens the list filtered to that category."""
    for n in range(3):
        memory_create(project=project, category="OPS_RULES", content=f"Rule {n}.", actor="agent")
    memory_create(project=project, category="ENV_STATE", content="Node 3 drained.", actor="agent")
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/")
    assert page.locator("h1").inner_text() == "Overview"
    assert page.locator(".overview-project h2").inner_text() == "Ops"
    page.locator("svg.counts-chart a[aria-label='ENV_STATE: 1'] rect").click()
    page.wait_for_url("**category=ENV_STATE**")
    assert page.locator("#table-section .count").inner_text() == "1 memory"
