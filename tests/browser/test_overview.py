"""The overview in a browser: `/` shows each project, its chart leads to the list, and its
coverage section fills itself in after the page (or, without JavaScript, from its link)."""

import pytest
from playwright.sync_api import expect

from memadmin.core.process_cache import reset_process_caches
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


@pytest.fixture
def memories(project):
    for n in range(3):
        memory_create(project=project, category="OPS_RULES", content=f"Rule {n}.", actor="agent")
    return project


def test_the_coverage_section_fills_itself_in_after_the_page(logged_in_page, live_server, memories):
    """A new server process shows the overview without the coverage; htmx then fills the
    section in, with no console error and no content-security refusal."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/")  # the overview, which fills the section in
    expect(page.locator(f"#coverage-{memories.pk} table")).to_have_count(1)
    reset_process_caches()  # ... so forget it, as a restarted server has
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', (e) => "
        "console.error('CSP refused ' + e.violatedDirective))"
    )
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{live_server.url}/")
    section = page.locator(f"#coverage-{memories.pk}")
    expect(section.locator("td.coverage-headers")).to_have_text("100%")
    expect(section.locator("td.coverage-plugin")).to_contain_text("3 never injectable")
    expect(section.get_by_role("link", name="Count the coverage")).to_have_count(0)
    assert f"{live_server.url}/?coverage={memories.pk}" in asked  # the section, not a reload
    assert page.url == f"{live_server.url}/"
    assert not problems, "\n".join(problems)


def test_without_javascript_the_coverage_is_a_link_away(
    page_without_scripts, live_server, memories
):
    """With scripts off, the section's link shows the overview with the coverage counted."""
    page = page_without_scripts("viewer")
    reset_process_caches()  # a restarted server
    page.goto(f"{live_server.url}/")
    section = page.locator(f"#coverage-{memories.pk}")
    expect(section.locator("table")).to_have_count(0)
    section.get_by_role("link", name="Count the coverage").click()
    page.wait_for_url(f"**/?coverage={memories.pk}#coverage-{memories.pk}")
    assert page.locator("h1").inner_text() == "Overview"
    expect(section.locator("td.coverage-headers")).to_have_text("100%")
