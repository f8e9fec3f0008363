"""Composites in a browser: reorder members, move the cursor, open the map lazily, merge."""

import pytest

from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.services import composite_create, composite_set_title
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def steps(project):
    return [
        memory_create(project=project, category="OPS_RULES", content=f"Step {name}.", actor="agent")
        for name in ("head", "one", "two", "three", "four")
    ]


def member_ids(composite):
    return list(
        CompositeMember.objects.filter(composite=composite)
        .order_by("position")
        .values_list("member_id", flat=True)
    )


def test_reordering_members_with_the_arrow_buttons(logged_in_page, live_server, steps):
    """Moving a member down swaps it in place; the page is not reloaded."""
    head, one, two, three, _ = steps
    composite = composite_create(
        head=head, type="sequence", members=[one, two, three], actor="agent"
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/composites/{composite.pk}/")
    page.evaluate("window.__marker = 'still here'")
    page.click(f"button[aria-label='Move #{one.display_id} down']")
    page.locator(".member-list li").first.filter(has_text="Step two.").wait_for()
    assert member_ids(composite) == [two.pk, one.pk, three.pk]
    page.click(f"button[aria-label='Move #{three.display_id} up']")
    page.locator(".member-list li").nth(1).filter(has_text="Step three.").wait_for()
    assert member_ids(composite) == [two.pk, three.pk, one.pk]
    texts = page.locator(".member-list li .member-text").all_inner_texts()
    assert [text.count("Step ") for text in texts] == [1, 1, 1]
    assert ["two" in texts[0], "three" in texts[1], "one" in texts[2]] == [True] * 3
    assert page.evaluate("window.__marker") == "still here"


def test_moving_the_cursor_wraps_around(logged_in_page, live_server, steps):
    """Advance walks the steps and wraps to the first; back wraps to the last."""
    head, one, two, three, _ = steps
    composite = composite_create(
        head=head, type="sequence", members=[one, two, three], actor="agent"
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/composites/{composite.pk}/")
    cursor = page.locator(".cursor-at")
    assert "Step 1 of 3" in cursor.inner_text()
    page.click("button:has-text('Advance')")
    page.locator(".cursor-at", has_text="Step 2 of 3").wait_for()
    page.click("button:has-text('Advance')")
    page.locator(".cursor-at", has_text="Step 3 of 3").wait_for()
    page.click("button:has-text('Advance')")
    page.locator(".cursor-at", has_text="Step 1 of 3").wait_for()
    page.click("button:has-text('Back')")
    page.locator(".cursor-at", has_text="Step 3 of 3").wait_for()
    assert page.locator(".member-list li.at-cursor").inner_text().find("Step three.") >= 0
    page.select_option("#cursor-step", "2")
    page.click("form:has(#cursor-step) button")
    page.locator(".cursor-at", has_text="Step 2 of 3").wait_for()
    composite.refresh_from_db()
    assert composite.cursor == 1
    # The picture marks the cursor's member.
    assert page.locator("#composite-section svg .cursor").count() >= 1


def test_opening_the_map_loads_details_only_then(logged_in_page, live_server, project, steps):
    """A node's details are not in the page until it is opened, then arrive by htmx."""
    head, one, two, three, four = steps
    composite_create(head=head, type="theme", members=[one, two], actor="agent")
    composite_create(head=one, type="sequence", members=[three, four], actor="agent")
    page = logged_in_page("viewer")
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{live_server.url}/map/?project={project.pk}")
    assert page.locator(".map-tree", has_text="Step one.").count() == 0
    assert not any("/map/node/" in url for url in requests)
    page.locator(f"#map-node-{head.pk} > details > summary").click()
    page.locator(f"#map-node-{head.pk}-{one.pk}").wait_for()
    assert any(f"/map/node/{head.pk}/" in url for url in requests)
    assert page.locator("text=Step three.").count() == 0
    page.locator(f"#map-node-{head.pk}-{one.pk} > details > summary").click()
    page.locator(f"#map-node-{head.pk}-{one.pk}-{three.pk}").wait_for()
    # Closing and reopening does not fetch again.
    fetched = len(requests)
    summary = page.locator(f"#map-node-{head.pk} > details > summary")
    summary.click()
    summary.click()
    page.locator(f"#map-node-{head.pk}-{one.pk}").wait_for()
    assert len(requests) == fetched


def test_a_merge_repoints_the_members(logged_in_page, live_server, project, steps):
    """Select two memories, merge them, and the composite now cites the result."""
    head, one, two, three, _ = steps
    composite = composite_create(
        head=head, type="sequence", members=[one, two, three], actor="agent"
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/?project={project.pk}")
    page.check(f"input[aria-label='Select #{one.display_id}']")
    page.check(f"input[aria-label='Select #{three.display_id}']")
    page.select_option("#bulk-action", "merge")
    page.click("#bulk-form button[type=submit]")
    page.wait_for_url("**/memories/merge/**")
    page.fill("textarea[name=content]", "Steps one and three, merged.")
    page.click("button:has-text('Merge')")
    page.locator("h1", has_text="Memory #").wait_for()
    result = Memory.objects.get(content="Steps one and three, merged.")
    assert member_ids(composite) == [result.pk, two.pk]
    page.goto(f"{live_server.url}/composites/{composite.pk}/")
    assert "Steps one and three, merged." in page.locator(".member-list").inner_text()
    assert "Step one." not in page.locator(".member-list").inner_text()


def test_editing_and_the_map_work_without_javascript(browser, live_server, project, steps, people):
    """With JavaScript off, each button posts a whole page and the map opens by its links."""
    head, one, two, three, _ = steps
    composite = composite_create(
        head=head, type="sequence", members=[one, two, three], actor="agent"
    )
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "editor")
    page.fill("#id_password", "correct horse battery staple")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")  # the overview
    page.goto(f"{live_server.url}/composites/{composite.pk}/")
    page.click(f"button[aria-label='Move #{one.display_id} down']")
    page.wait_for_load_state()
    assert member_ids(composite) == [two.pk, one.pk, three.pk]
    assert "Step 2 of 3" in page.locator(".cursor-at").inner_text()  # it follows step one
    page.click("button:has-text('Back')")
    page.wait_for_load_state()
    page.click("button:has-text('Back')")
    page.wait_for_load_state()
    assert "Step 3 of 3" in page.locator(".cursor-at").inner_text()
    page.fill("#id_members", str(head.display_id))
    page.click("button:has-text('Add members')")
    page.wait_for_load_state()
    assert "never its own member" in page.locator(".messages").inner_text()
    assert member_ids(composite) == [two.pk, one.pk, three.pk]
    page.goto(f"{live_server.url}/map/?project={project.pk}")
    page.locator(f"#map-node-{head.pk} > details > summary").click()
    page.click(f"#map-node-{head.pk} a:has-text('Show its 3 details')")
    page.wait_for_url(f"**open={head.pk}**")
    assert page.locator(f"#map-node-{head.pk}-{two.pk}").is_visible()
    context.close()


def test_a_rename_over_someone_elses_change_is_refused_and_keeps_the_text(
    logged_in_page, live_server, steps
):
    """Someone renames meanwhile: the refusal shows, the typed title stays, renaming again works."""
    head, one, two, *_ = steps
    composite = composite_create(head=head, type="sequence", members=[one, two], actor="agent")
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/composites/{composite.pk}/")
    composite_set_title(composite=composite, title="Theirs", actor="agent")
    page.fill("#id_title", "My careful title")
    page.click("button:has-text('Rename')")
    page.locator("#composite-section .error", has_text="Someone else changed").wait_for()
    assert page.input_value("#id_title") == "My careful title"
    assert Composite.objects.get(pk=composite.pk).title == "Theirs"
    page.click("button:has-text('Rename')")
    page.locator("#composite-section .done", has_text="Title saved").wait_for()
    assert Composite.objects.get(pk=composite.pk).title == "My careful title"
