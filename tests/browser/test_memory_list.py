"""The memory list: filtering, sorting and paging swap only the table, with or without JavaScript."""

from contextlib import suppress

import pytest
from playwright.sync_api import expect

from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def many_memories(project):
    for i in range(30):
        memory_create(
            project=project,
            category="OPS_RULES" if i % 2 else "ENV_STATE",
            content=f"Memory number {i:02d} about {'deploys' if i % 3 else 'backups'}.",
            actor="historian",
        )
    return project


def test_filtering_swaps_only_the_table(logged_in_page, live_server, many_memories):
    """Typing in the text filter replaces the table section without reloading the page."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/memories/")
    page.evaluate("window.__marker = 'still here'")
    assert page.locator("#table-section .count").inner_text() == "30 memories"
    page.fill("#id_q", "backups")
    page.locator("#table-section .count", has_text="10 memories").wait_for()
    assert page.evaluate("window.__marker") == "still here"  # no full reload happened
    assert "q=backups" in page.url  # the URL follows, so the view can be shared
    page.click("#table-section th a:has-text('Content')")
    page.wait_for_url("**sort=content**")
    page.locator("#table-section tbody td", has_text="Memory number 00").wait_for()
    assert page.evaluate("window.__marker") == "still here"
    first = page.locator("#table-section tbody tr td:nth-child(4)").first.inner_text()
    assert first.startswith("Memory number 00")


def test_paging_swaps_only_the_table(logged_in_page, live_server, many_memories):
    """The pagination links swap the table in place."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/memories/")
    page.evaluate("window.__marker = 'still here'")
    page.click("#table-section .pagination a:has-text('2')")
    page.wait_for_url("**page=2**")
    page.locator("#table-section tbody tr").nth(4).wait_for()
    assert page.locator("#table-section tbody tr").count() == 5
    assert page.evaluate("window.__marker") == "still here"


def test_the_same_flow_works_without_javascript(browser, live_server, many_memories, people):
    """With JavaScript off, the filter form and the sort links load whole pages."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "viewer")
    page.fill("#id_password", "correct horse battery staple")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")  # the overview
    page.goto(f"{live_server.url}/memories/")
    page.fill("#id_q", "backups")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**q=backups**")
    assert page.locator("#table-section .count").inner_text() == "10 memories"
    page.click("#table-section th a:has-text('Content')")
    page.wait_for_url("**sort=content**")
    assert page.locator("#table-section .count").inner_text() == "10 memories"
    assert page.locator("h1").inner_text() == "Memories"  # a whole page, not a fragment
    context.close()


def test_selecting_rows_does_not_refresh_the_table(logged_in_page, live_server, many_memories):
    """Ticking row boxes and choosing a bulk action keeps the selection: no table swap."""
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/")
    list_requests = []
    page.on("request", lambda r: list_requests.append(r.url) if "/memories/?" in r.url else None)
    boxes = page.locator("#table-section input[type=checkbox]")
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.select_option("#bulk-action", index=1)
    page.wait_for_timeout(800)  # longer than the filter's 300 ms delay
    assert list_requests == []
    assert boxes.nth(0).is_checked() and boxes.nth(1).is_checked()


def test_a_refused_confirmation_keeps_the_typed_reason(logged_in_page, live_server, project):
    """A row changed after the review: the review comes back, reason kept; the retry applies."""
    first, second = (
        memory_create(project=project, category="OPS_RULES", content=text, actor="historian")
        for text in ("Old rollout step one.", "Old rollout step two.")
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/")
    boxes = page.locator("#table-section input[type=checkbox][name=ids]")
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.select_option("#bulk-action", "archive")
    page.click("#bulk-form button[type=submit]")
    page.locator(".bulk-summary", has_text="2 rows will change").wait_for()
    page.fill("#id_reason", "Replaced by the new runbook")
    memory_update(memory=first, status="permanent", actor="historian")
    page.click("button[name=confirm]")

    page.locator("[role=alert]", has_text="changed since you reviewed it").wait_for()
    assert page.locator("#id_reason").input_value() == "Replaced by the new runbook"
    assert page.locator(".bulk-list", has_text="permanent").is_visible()
    assert Memory.objects.get(pk=second.pk).status == "active"
    page.click("button[name=confirm]")
    page.wait_for_url(f"{live_server.url}/memories/**")
    page.locator(".messages", has_text="Archived 2 memories.").wait_for()
    assert set(
        Memory.objects.filter(pk__in=[first.pk, second.pk]).values_list("status", flat=True)
    ) == {"archived"}
    assert first.history.first().history_change_reason == "Replaced by the new runbook"


def test_an_action_chosen_while_the_offers_are_asked_for_stays_chosen(
    logged_in_page, live_server, many_memories
):
    """Tick a row, choose an action before the server answered the tick: the answer, when it
    comes, does not put the action chosen before back (the review would be of another action)."""
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/?sort=content")
    held = []
    page.route("**/memories/bulk/actions/**", lambda route: held.append(route))
    boxes = page.locator("#table-section input[type=checkbox][name=ids]")
    boxes.nth(0).check()
    boxes.nth(2).check()
    while not held:
        page.wait_for_timeout(20)
    page.select_option("#bulk-action", "merge")
    page.wait_for_timeout(200)  # a question the choice asks is sent by now
    page.unroute("**/memories/bulk/actions/**")
    for route in held:  # the answers come now, in the order asked
        with suppress(Exception):  # a question htmx abandoned for a newer one
            route.continue_()
    page.wait_for_load_state("networkidle")
    assert page.locator("#bulk-action").input_value() == "merge"
    page.click("#bulk-form button[type=submit]")
    page.wait_for_url("**/memories/merge/**")


def test_ticking_rows_narrows_the_bulk_actions(logged_in_page, live_server, many_memories):
    """Merge needs two rows of one category: it goes when one row is ticked, and comes back."""
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/?sort=content")
    options = page.locator("#bulk-action option")

    def values():
        return [options.nth(i).get_attribute("value") for i in range(options.count())]

    assert values() == ["archive", "move", "add", "merge"]
    boxes = page.locator("#table-section input[type=checkbox][name=ids]")
    boxes.nth(0).check()  # "Memory number 00", ENV_STATE
    page.locator("#bulk-action:not(:has(option[value=merge]))").wait_for()
    assert values() == ["archive", "move", "add"]
    boxes.nth(2).check()  # "Memory number 02", ENV_STATE too
    page.locator("#bulk-action option[value=merge]").wait_for(state="attached")
    assert boxes.nth(0).is_checked() and boxes.nth(2).is_checked()


def test_a_bulk_field_shows_only_while_its_action_is_offered(
    logged_in_page, live_server, many_memories
):
    """Ticking only an archived row drops "add": the composite field goes, and comes back."""
    archived = Memory.objects.get(content__startswith="Memory number 00")
    memory_archive(memory=archived, actor="historian", reason="old")
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/?status=any&sort=content")
    composite, category = page.locator(".bulk-for-add"), page.locator(".bulk-for-move")
    assert composite.is_visible() and category.is_visible()
    box = page.locator(f"#table-section input[name=ids][value='{archived.pk}']")
    box.check()
    page.locator("#bulk-action:not(:has(option[value=add]))").wait_for()
    composite.wait_for(state="hidden")
    assert category.is_visible()
    box.uncheck()
    composite.wait_for(state="visible")


def test_slash_searches_from_any_page(logged_in_page, live_server, many_memories):
    """ "/" opens the memory list's search from another page, focused; typing filters."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/history/")
    page.keyboard.press("/")
    page.wait_for_url("**/memories/#search")
    expect(page.locator('input[name="q"]')).to_be_focused()
    page.keyboard.press("/")  # in the field, "/" is typed, not a shortcut
    expect(page.locator('input[name="q"]')).to_have_value("/")


def test_select_all_ticks_every_row_and_the_bulk_actions_follow(
    logged_in_page, live_server, many_memories
):
    """The header box ticks every row shown and the bulk bar offers its actions for them;
    a row is two Tab stops (its box, its text)."""
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/")
    rows = page.locator('#table-section tbody input[name="ids"]')
    page.locator("input.select-all").check()
    assert rows.count() > 1
    assert all(rows.nth(n).is_checked() for n in range(rows.count()))
    expect(page.locator("#bulk-action option[value=archive]")).to_have_count(1)
    page.locator("input.select-all").uncheck()
    assert not any(rows.nth(n).is_checked() for n in range(rows.count()))
    first_row = page.locator("#table-section tbody tr").first
    stops = first_row.locator("a:not([tabindex='-1']), input").count()
    assert stops == 2
