"""A script written into a memory is shown as text in the browser, never run."""

import pytest

from memadmin.memories.services import memory_create, memory_update

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INJECTED = (
    "<script>window.__injected = 'script'</script><img src=x onerror=\"window.__injected = 'img'\">"
)


@pytest.fixture
def injected_memory(project):
    memory = memory_create(
        project=project, category="OPS_RULES", content=f"Deploy. {INJECTED}", actor="historian"
    )
    return memory_update(
        memory=memory, actor="historian", content=f"Deploy now. {INJECTED}", reason=INJECTED
    )


def test_an_injected_script_is_rendered_as_text(logged_in_page, live_server, injected_memory):
    """The memory page, its history and the audit log show the markup and run none of it."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/memories/{injected_memory.pk}/")
    assert INJECTED in page.locator(".memory-content").inner_text()
    assert INJECTED in page.locator(".memory-timeline").inner_text()
    assert page.locator("main script").count() == 0
    assert page.locator("main img").count() == 0
    assert page.evaluate("typeof window.__injected") == "undefined"
    for path in (f"/history/memories/{injected_memory.pk}/", "/history/"):
        page.goto(f"{live_server.url}{path}")
        assert "window.__injected" in page.locator("main").inner_text()
        assert page.locator("main script, main img").count() == 0
        assert page.evaluate("typeof window.__injected") == "undefined"
