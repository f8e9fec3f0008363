"""Undo in a browser: after a bulk archive, the message's Undo brings the rows back."""

import pytest

from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("javascript", [True, False])
def test_undo_after_a_bulk_archive_restores_the_rows(
    browser, live_server, people, project, javascript
):
    """Archive two rows, press Undo in the message: both are live and listed again."""
    first, second, _ = (
        memory_create(project=project, category="OPS_RULES", content=text, actor="historian")
        for text in ("Old rollout step one.", "Old rollout step two.", "Keep me.")
    )
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "editor")
    page.fill("#id_password", "correct horse battery staple")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")  # the overview
    page.goto(f"{live_server.url}/memories/")
    page.get_by_label(f"Select #{first.display_id}", exact=True).check()
    page.get_by_label(f"Select #{second.display_id}", exact=True).check()
    page.select_option("#bulk-action", "archive")
    page.click("#bulk-form button[type=submit]")
    page.click("button[name=confirm]")
    page.locator(".messages", has_text="Archived 2 memories.").wait_for()
    assert page.locator("#table-section .count").inner_text() == "1 memory"
    page.locator(".messages .undo-form button", has_text="Undo").click()
    page.locator(".messages", has_text="Undone: 2 memories restored.").wait_for()
    assert page.locator("#table-section .count").inner_text() == "3 memories"
    assert set(Memory.objects.values_list("status", flat=True)) == {"active"}
    context.close()
