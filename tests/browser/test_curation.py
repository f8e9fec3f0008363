"""The near-duplicates page in a browser: "Computing…" turns into the clusters on its own."""

import pytest

from memadmin.curation.tasks import analyse_project
from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_computing_notice_is_replaced_when_the_result_is_kept(
    logged_in_page, live_server, project, settings
):
    """While no result is kept the page says so; once one is, htmx swaps the clusters in."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    for category in ("OPS_RULES", "ENV_STATE"):
        memory_create(
            project=project,
            category=category,
            content="Restart the scheduler after a DNS TTL change in eu-west.",
            actor="agent",
        )
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/curation/{project.pk}/duplicates/")
    page.locator("text=Computing the near-duplicates").wait_for()
    page.evaluate("window.__marker = 'still here'")
    analyse_project.call(project.pk)  # what the worker would do
    page.locator("#cluster-1").wait_for(timeout=10_000)
    assert "exact" in page.locator("#cluster-1 h2").inner_text()
    assert page.evaluate("window.__marker") == "still here"
