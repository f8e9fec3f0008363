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
    expect(page.locator("#id_members")).to_have_value(f"#{kept.display_id}, #{wanted.display_id}")
    page.click("button:has-text('Create')")
    page.wait_for_url("**/composites/*/")
    composite = Composite.objects.get(head=head)
    members = CompositeMember.objects.filter(composite=composite).order_by("position")
    assert list(members.values_list("member_id", flat=True)) == [kept.pk, wanted.pk]
