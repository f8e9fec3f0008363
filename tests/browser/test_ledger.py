"""The ledger page in a browser: moving the budget changes the ledger in place."""

import re

import pytest

from memadmin.composites.services import composite_create
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def store(project):
    """Twenty memories of about 30 tokens each, three of them under a header.

    Their ops-six categories are the pack's: pack mode injects them, the stock plugin drops them.
    """
    memories = [
        memory_create(
            project=project,
            category="OPS_RULES" if n % 2 else "ENV_STATE",
            content=f"Memory {n:02d}: " + "a fact worth keeping in the agent's context " * 2,
            importance=90 - n,
            actor="historian",
        )
        for n in range(20)
    ]
    composite_create(head=memories[0], type="sequence", members=memories[1:4], actor="agent")
    return project


def heading(page) -> str:
    return page.locator("#ledger-preview h2").first.inner_text()


def test_moving_the_budget_changes_the_ledger(logged_in_page, live_server, store):
    """The slider and the number box each redraw the preview, and keep each other in step."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/ledger/{store.pk}/?counter=heuristic&mode=pack")
    page.evaluate("window.__marker = 'still here'")
    assert re.search(r"20 memories injected", heading(page))

    page.fill("#budget-range", "600")
    page.locator("#ledger-preview h2", has_text="of 600 tokens").wait_for()
    assert page.input_value("#budget-number") == "600"
    small = int(re.search(r"(\d+) memor", heading(page)).group(1))
    assert 0 < small < 20
    assert page.locator("#ledger-preview tr.left-out").count() > 0

    page.fill("#budget-number", "20000")
    page.locator("#ledger-preview h2", has_text="of 20000 tokens").wait_for()
    assert page.input_value("#budget-range") == "20000"
    assert "20 memories injected" in heading(page)
    assert page.evaluate("window.__marker") == "still here"  # swapped in place, no reload
    assert "budget=20000" in page.url


def test_switching_to_headers_mode_shows_lazy_details(logged_in_page, live_server, store):
    """Headers mode leaves details out as lazy, and the header lists them."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/ledger/{store.pk}/?counter=heuristic")
    page.select_option("#id_mode", "headers")
    page.locator("#ledger-preview .ledger-mode", has_text="headers").wait_for()
    page.select_option("#id_reason", "lazy detail")
    page.locator("#ledger-preview .count", has_text="3 rows").wait_for()
    # The block is folded by default: its text is there, one click away.
    assert "(details: " in page.locator("#ledger-rendered").text_content()


def test_the_budget_works_without_javascript(browser, live_server, store, people):
    """With JavaScript off, the form loads a whole page at the budget typed in."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "viewer")
    page.fill("#id_password", "correct horse battery staple")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")  # the overview
    page.goto(f"{live_server.url}/ledger/{store.pk}/?counter=heuristic")
    page.fill("#budget-number", "700")
    page.click("#ledger-form button[type=submit]")
    page.wait_for_url("**budget=700**")
    assert "of 700 tokens" in heading(page)
    assert page.input_value("#budget-range") == "700"
    context.close()


FRAGMENTABLE = (
    "Release SOP, the full procedure for shipping a version of the service to production.\n\n"
    "1. Build with make release, after checking that the changelog names every change.\n"
    "2. Tag with git tag vX and push the tag, so that the pipeline builds the images.\n"
    "3. Announce it in #releases, with the changelog and the rollback instructions."
)


def test_choosing_another_split_mode_proposes_its_split(logged_in_page, live_server, project):
    """On the fragment page, the mode select replaces the split with that mode's proposal."""
    memory = memory_create(
        project=project, category="OPS_RULES", content=FRAGMENTABLE, actor="historian"
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/structure/fragment/{memory.pk}/")
    assert page.locator("#split-section h2").inner_text() == "4 details"

    page.select_option("#split-by", "paragraphs")
    page.locator("#split-section h2", has_text="2 details").wait_for()
    page.select_option("#split-by", "items")
    page.locator("#split-section h2", has_text="4 details").wait_for()


def test_a_merge_box_and_a_start_box_refresh_the_split(logged_in_page, live_server, project):
    """Ticking a merge box previews one detail fewer; a start outside the text is refused under
    its box, which the error describes, and nothing is previewed until it is corrected."""
    memory = memory_create(
        project=project, category="OPS_RULES", content=FRAGMENTABLE, actor="historian"
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/structure/fragment/{memory.pk}/")
    # A click, not check(): the merge's refresh renumbers the boxes (the merged one is gone),
    # and check() reading the new "into fragment 2" back unticked would click it again.
    page.get_by_label("into fragment 2", exact=True).click()
    page.locator("#split-section h2", has_text="3 details").wait_for()
    assert page.locator("#id_boundary-TOTAL_FORMS").input_value() == "2"

    start = page.get_by_label("Fragment 3 starts on line", exact=True)
    assert start.input_value() == "5"
    start.fill("99")
    start.press("Tab")  # the change event: the split section comes back with the error
    error = page.locator("#id_boundary-1-start_error")
    error.wait_for()
    assert error.inner_text() == "Line 99 is outside the text: a fragment starts on line 2 to 5."
    start = page.get_by_label("Fragment 3 starts on line", exact=True)
    assert start.get_attribute("aria-describedby") == "id_boundary-1-start_error"
    assert start.get_attribute("aria-invalid") == "true"
    assert page.locator("#split-section .fragment-text").count() == 0

    start.fill("4")
    start.press("Tab")
    page.locator("#split-section h2", has_text="3 details").wait_for()
    assert page.locator("#id_boundary-1-start_error").count() == 0


def test_typing_while_the_split_refreshes_is_kept_and_previewed(
    logged_in_page, live_server, project
):
    """A start box changed while a refresh of the split is in flight keeps what was typed
    when that refresh lands (htmx sends the second change's refresh only after it, reading
    the box again), and the split is then previewed with it."""
    memory = memory_create(
        project=project, category="OPS_RULES", content=FRAGMENTABLE, actor="historian"
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/structure/fragment/{memory.pk}/")
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:
            held.append(route)  # answered below

    page.route(re.compile(r"/structure/fragment/\d+/\?"), hold_the_first)
    page.get_by_label("into fragment 3", exact=True).click()  # a refresh, held in flight
    page.locator("fieldset.fragment-split.htmx-request").wait_for()
    start = page.get_by_label("Fragment 3 starts on line", exact=True)
    assert start.input_value() == "4"
    start.fill("5")
    start.press("Tab")  # its refresh waits for the one in flight, and would send "4" again
    held[0].continue_()
    # The held refresh lands (one detail fewer); the typed start is kept, then previewed.
    page.locator("#split-section small", has_text="lines 3 to 4").wait_for()
    assert page.locator("#split-section h2").inner_text() == "3 details"
    assert page.get_by_label("Fragment 3 starts on line", exact=True).input_value() == "5"


def test_copy_puts_the_exact_block_on_the_clipboard(logged_in_page, live_server, store):
    """The Copy button copies the block as injected: escaped content stays escaped."""
    memory_create(
        project=store,
        category="OPS_RULES",
        content="Deploy with `just deploy <env>` & check.",
        importance=99,
        actor="historian",
    )
    page = logged_in_page("viewer")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(f"{live_server.url}/ledger/{store.pk}/?counter=heuristic&mode=pack")
    page.click("button.copy")
    page.locator("button.copy", has_text="Copied").wait_for()
    copied = page.evaluate("navigator.clipboard.readText()")
    download = page.request.get(
        f"{live_server.url}/ledger/{store.pk}/download/?counter=heuristic&mode=pack"
    )
    assert copied == download.text()
    assert "`just deploy &lt;env&gt;` &amp; check." in copied


def test_an_excluded_row_states_its_need_and_what_was_left(logged_in_page, live_server, project):
    """At a small budget a left-out row says how many tokens it needed and how many were left."""
    memories = [
        memory_create(
            project=project,
            category="OPS_RULES",
            content=f"Rule {n:02d}: " + "keep this fact in mind always " * 12,
            importance=90 - n,
            actor="historian",
        )
        for n in range(12)
    ]
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/ledger/{project.pk}/?counter=heuristic&budget=500&mode=pack")
    last = page.locator(f"#row-{memories[-1].pk}")
    why = last.locator(".ledger-why").inner_text()
    need, left = map(
        int, re.fullmatch(r"needed (\d+) tokens, (\d+) left when its turn came", why).groups()
    )
    assert need > left
    assert "importance 79" in last.locator(".ledger-placed").inner_text()
    page.fill("#id_find", str(memories[3].pk))
    page.locator(f"#row-{memories[3].pk}.found").wait_for()


def test_applying_a_split_of_a_text_changed_meanwhile_splits_nothing(
    logged_in_page, live_server, project
):
    """The agent edits the text after the preview: the page refuses, then previews the new text."""
    memory = memory_create(
        project=project, category="OPS_RULES", content=FRAGMENTABLE, actor="historian"
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/structure/fragment/{memory.pk}/")
    memory_update(memory=memory, content=FRAGMENTABLE + "\n\nAdded meanwhile.", actor="agent")
    page.fill("#id_summary", "My own summary.")
    page.get_by_role("button", name="Fragment: create the details and the header").click()
    page.locator(".errorlist", has_text="nothing was split").wait_for()
    assert page.locator("#id_summary").input_value() == "My own summary."
    assert "Added meanwhile." in page.locator("#split-section").inner_text()
    assert Memory.objects.get(pk=memory.pk).status != Memory.Status.ARCHIVED
    page.get_by_role("button", name="Fragment: create the details and the header").click()
    page.wait_for_url(re.compile(r"/memories/\d+/$"))
    assert Memory.objects.get(pk=memory.pk).status == Memory.Status.ARCHIVED


@pytest.fixture
def long_store(project):
    """Ninety memories: the rows fill two pages, and most are far below the fold."""
    return [
        memory_create(
            project=project,
            category="OPS_RULES",
            content=f"Rule {n:02d}: " + "a fact worth keeping in the agent's context " * 2,
            importance=95 - n,
            actor="historian",
        )
        for n in range(90)
    ]


def test_find_takes_you_to_the_row(logged_in_page, live_server, project, long_store):
    """Typing an id in Find brings its row into view and gives it focus; the block stays
    folded, one click from its text."""
    page = logged_in_page("viewer")
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{live_server.url}/ledger/{project.pk}/?counter=heuristic&mode=pack")
    assert not page.locator("#ledger-rendered").is_visible()
    page.locator(".ledger-block summary").click()
    assert page.locator("#ledger-rendered").is_visible()

    target = long_store[70]
    page.fill("#id_find", str(target.display_id))
    row = page.locator(f"#row-{target.display_id}")
    row.wait_for()
    page.wait_for_function(
        "(id) => document.activeElement && document.activeElement.id === id",
        arg=f"row-{target.display_id}",
    )
    assert "found" in row.get_attribute("class")
    box = row.bounding_box()
    assert 0 <= box["y"] <= 900 - box["height"], "the found row is in view"
    assert page.evaluate("window.scrollY") > 1000, "the page scrolled down to it"


def test_find_opens_at_the_row_without_javascript(
    page_without_scripts, live_server, project, long_store
):
    """Without scripts the page says the row is there and its link goes to it."""
    page = page_without_scripts("viewer", viewport={"width": 1400, "height": 900})
    target = long_store[70]
    page.goto(
        f"{live_server.url}/ledger/{project.pk}/?counter=heuristic&mode=pack"
        f"&find={target.display_id}"
    )
    page.get_by_role("link", name="go to its row").click()
    box = page.locator(f"#row-{target.display_id}").bounding_box()
    assert -1 <= box["y"] <= 900  # the anchor puts the row at the top (less a subpixel)
    assert page.evaluate("window.scrollY") > 1000
