"""The bulk bar says why Restore is missing when the archived memories were superseded,
with JavaScript (as rows are ticked) and without (for the page's rows)."""

import pytest
from playwright.sync_api import expect

from memadmin.curation.merge_services import memory_merge
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def archived(project):
    """Two memories merged into a third, and one archived on its own."""

    def make(content):
        return memory_create(project=project, category="OPS_RULES", content=content, actor="agent")

    sources = [make("Rule 0."), make("Rule 1.")]
    merged = memory_merge(memories=sources, content="Rules 0 and 1.", actor="agent")
    alone = memory_archive(memory=make("Old rule."), actor="agent", reason="gone")
    return {"sources": sources, "merged": merged, "alone": alone}


def options(page) -> list[str]:
    return page.locator("#bulk-action option").evaluate_all("os => os.map(o => o.value)")


def test_ticking_a_merged_memory_says_why_restore_went(logged_in_page, live_server, archived):
    """Ticking only a merged source takes Restore out of the menu and says why, visibly;
    ticking a restorable one too brings Restore back and the note goes."""
    page = logged_in_page("editor")
    page.goto(f"{live_server.url}/memories/?status=archived")
    assert "restore" in options(page)
    expect(page.locator(".bulk-withheld")).to_have_count(0)
    source = archived["sources"][0]
    page.check(f"input[name=ids][value='{source.pk}']")
    note = page.locator("#bulk-action-choice .bulk-withheld")
    expect(note).to_be_visible()
    expect(note).to_contain_text(
        f"#{source.display_id} was merged into #{archived['merged'].display_id}"
    )
    assert "restore" not in options(page)
    page.check(f"input[name=ids][value='{archived['alone'].pk}']")
    expect(page.locator(".bulk-withheld")).to_have_count(0)
    assert "restore" in options(page)


def test_without_javascript_the_page_says_why_it_has_no_restore(
    page_without_scripts, live_server, archived
):
    """A page whose archived rows were all merged away says so in the bar, no script needed."""
    page = page_without_scripts("editor")
    page.goto(f"{live_server.url}/memories/?status=archived&q=Rule+0")
    assert "restore" not in options(page)
    note = page.locator("#bulk-form .bulk-withheld")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Restore is not offered: #")
    expect(note).to_contain_text("undo the merge from")
    box = note.bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 0
