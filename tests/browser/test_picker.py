"""The search-as-you-type picker in a browser: a word of a memory's text finds it."""

import pytest
from playwright.sync_api import expect

from memadmin.composites.models import Composite, CompositeMember
from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_creation_page_finds_a_member_by_a_word_of_its_text(
    logged_in_page, live_server, project
):
    """Typing a word lists the memories holding it; choosing one puts its id in the field."""
    head = memory_create(
        project=project, category="OPS_RULES", content="Release steps.", actor="agent"
    )
    kept = memory_create(
        project=project, category="OPS_RULES", content="Tag the build.", actor="agent"
    )
    wanted = memory_create(
        project=project,
        category="OPS_RULES",
        content="Rollback with the canary switch.",
        actor="agent",
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/composites/new/?head={head.pk}")
    field = page.locator("#id_members")
    field.fill(f"#{kept.display_id}, canary")
    choice = page.locator(".picker-choice", has_text="canary switch")
    choice.wait_for()
    assert page.locator(".picker-choice").count() == 1
    choice.click()
    # A locator assertion, not wait_for_function: a string predicate is evaluated with eval,
    # which the page's Content-Security-Policy refuses whenever it has to poll.
    expect(page.locator("#id_members")).to_have_value(f"#{kept.display_id}, #{wanted.display_id}, ")
    page.click("button:has-text('Create')")
    page.wait_for_url("**/composites/*/")
    composite = Composite.objects.get(head=head)
    members = CompositeMember.objects.filter(composite=composite).order_by("position")
    assert list(members.values_list("member_id", flat=True)) == [kept.pk, wanted.pk]


def test_after_a_choice_the_next_search_is_typed_on_without_a_click(
    logged_in_page, live_server, project
):
    """Choosing keeps the focus in the field and leaves a separator: typing the next word
    searches anew, and Create adds both, never "#12cold storage"."""
    head = memory_create(project=project, category="OPS_RULES", content="Backups.", actor="agent")
    first = memory_create(
        project=project, category="OPS_RULES", content="Nightly dry run.", actor="agent"
    )
    second = memory_create(
        project=project, category="OPS_RULES", content="Cold storage for a year.", actor="agent"
    )
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/composites/new/?head={head.pk}")
    page.locator("#id_members").press_sequentially("dry run")
    page.locator(".picker-choice", has_text="Nightly dry run").click()
    expect(page.locator("#id_members")).to_have_value(f"#{first.display_id}, ")
    expect(page.locator("#id_members")).to_be_focused()
    # Typed at once, as a fast typist would: the caret is after the id from the first key.
    page.keyboard.type("cold storage")
    expect(page.locator("#id_members")).to_have_value(f"#{first.display_id}, cold storage")
    page.locator(".picker-choice", has_text="Cold storage").click()
    expect(page.locator("#id_members")).to_have_value(
        f"#{first.display_id}, #{second.display_id}, "
    )
    page.click("button:has-text('Create')")
    page.wait_for_url("**/composites/*/")
    composite = Composite.objects.get(head=head)
    members = CompositeMember.objects.filter(composite=composite).order_by("position")
    assert list(members.values_list("member_id", flat=True)) == [first.pk, second.pk]


def test_without_javascript_ids_typed_with_a_trailing_separator_are_taken(
    page_without_scripts, live_server, project
):
    """The field is a plain text box without scripts: "12, 13, " adds both."""
    head = memory_create(project=project, category="OPS_RULES", content="Backups.", actor="agent")
    one = memory_create(project=project, category="OPS_RULES", content="Dry run.", actor="agent")
    two = memory_create(project=project, category="OPS_RULES", content="Cold.", actor="agent")
    page = page_without_scripts("editor")
    page.goto(f"{live_server.url}/composites/new/?head={head.pk}")
    page.fill("#id_members", f"#{one.display_id}, #{two.display_id}, ")
    page.click("button:has-text('Create')")
    page.wait_for_url("**/composites/*/")
    composite = Composite.objects.get(head=head)
    members = CompositeMember.objects.filter(composite=composite).order_by("position")
    assert list(members.values_list("member_id", flat=True)) == [one.pk, two.pk]
