"""Pages that forgive, in a browser: a composite from ids, filters, fragmenting without script."""

import re

import pytest

from memadmin.composites.models import Composite
from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOP = (
    "# Release SOP\n"
    "1. Freeze deploys and announce the release in the channel before anything else.\n"
    "2. Tag with git tag vX.Y.Z and push the tag to the origin remote for the build.\n"
    "3. Watch the canary for ten minutes; roll back at once if the error rate rises.\n"
    "4. Promote the release everywhere and lift the deploy freeze when it is done."
)


def test_new_composite_names_every_bad_id_then_creates(logged_in_page, live_server, project):
    """From the list's button: two bad ids are named at once; fixed, the composite is made."""
    head, step = (
        memory_create(project=project, category="OPS_RULES", content=text, actor="agent")
        for text in ("Release runbook.", "Freeze deploys.")
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/composites/")
    page.get_by_role("link", name="New composite").click()
    page.fill("#id_head", "99998")
    page.fill("#id_members", f"{step.pk}, 99999")
    page.get_by_role("button", name="Create").click()
    page.get_by_text("No memory #99998 in Ops.").wait_for()
    assert page.get_by_text("No memory #99999 in Ops.").is_visible()
    page.fill("#id_head", str(head.pk))
    page.fill("#id_members", str(step.pk))
    page.get_by_role("button", name="Create").click()
    page.locator(".messages", has_text="Composite created.").wait_for()
    assert Composite.objects.get().head == head


def test_the_category_filter_forgives_case_and_parts(logged_in_page, live_server, project):
    """Typing "ops" finds OPS_RULES memories; archived ones stay hidden by default."""
    memory_create(project=project, category="OPS_RULES", content="Deploy Tuesdays.", actor="agent")
    memory_create(project=project, category="ENV_STATE", content="Node 3 drained.", actor="agent")
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/memories/")
    page.fill("#id_category", "ops")
    page.locator("#table-section .count", has_text="1 memory").wait_for()
    assert "Deploy Tuesdays." in page.locator("#table-section").inner_text()


def editor_without_script(browser, live_server):
    """Return a browser context with scripts off and its page, logged in as the editor."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "editor")
    page.fill("#id_password", "correct horse battery staple")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")  # the overview
    return context, page


def test_previewing_a_split_without_javascript_keeps_the_token_out_of_the_address(
    browser, live_server, people, project
):
    """Preview the split with scripts off: the address never carries the CSRF token."""
    memory = memory_create(project=project, category="OPS_RULES", content=SOP, actor="agent")
    context, page = editor_without_script(browser, live_server)
    page.goto(f"{live_server.url}/structure/fragment/{memory.pk}/")
    assert page.locator("#id_summary").input_value() == "Release SOP"
    page.get_by_role("button", name="Preview the split").click()
    page.wait_for_load_state()
    assert "csrfmiddlewaretoken" not in page.url
    assert "heuristic" in page.locator(".ledger-counter").inner_text()
    context.close()


def test_merging_and_applying_a_split_without_javascript(browser, live_server, people, project):
    """Scripts off: tick a merge box, preview (a post of the rows), apply: three details."""
    memory = memory_create(project=project, category="OPS_RULES", content=SOP, actor="agent")
    context, page = editor_without_script(browser, live_server)
    page.goto(f"{live_server.url}/structure/fragment/{memory.pk}/")
    assert page.locator("#split-section h2").inner_text() == "4 details"
    page.get_by_label("into fragment 2", exact=True).check()
    page.get_by_role("button", name="Preview the split").click()
    page.wait_for_load_state()
    assert page.locator("#split-section h2").inner_text() == "3 details"
    assert page.locator("#id_boundary-TOTAL_FORMS").input_value() == "2"
    page.get_by_role("button", name="Fragment: create the details and the header").click()
    page.wait_for_url(re.compile(r"/memories/\d+/$"))
    assert Composite.objects.get(head__content="Release SOP").members.count() == 3
    context.close()
