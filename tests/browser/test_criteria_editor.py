"""The criteria editor: an edit shows in the historian preview and the hash without a reload."""

import pytest

from memadmin.taxonomy.selectors import category_by_name, current_surface_hash
from memadmin.taxonomy.services import criteria_override_save

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_DEFINITION = "Standing rules for running the systems, and nothing else."


def test_editing_a_criterion_updates_preview_and_hash_in_place(
    logged_in_page, live_server, project
):
    """A curator edits the definition; the preview and the hash change; clearing restores it."""
    category = category_by_name(project, "OPS_RULES")
    pack_definition = category.default_criteria["definition"]
    hash_before = current_surface_hash(project)
    page = logged_in_page("curator")
    page.goto(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    page.evaluate("window.__marker = 'still here'")
    assert page.locator("#surface-hash").inner_text() == hash_before[:12]
    assert pack_definition in page.locator("#historian-preview").inner_text()

    page.click("#field-definition a.edit-field")
    box = page.locator("#field-definition textarea[name=definition]")
    box.wait_for()
    box.fill(NEW_DEFINITION)
    page.click("#field-definition button[type=submit]")

    page.locator("#historian-preview", has_text=NEW_DEFINITION).wait_for()
    hash_after = current_surface_hash(project)
    assert hash_after != hash_before
    page.locator("#surface-hash", has_text=hash_after[:12]).wait_for()
    assert page.locator("#field-definition .criteria-text").inner_text() == NEW_DEFINITION
    assert page.locator("#criteria-status .badge.overridden").is_visible()
    assert page.locator("#field-definition ins").count() >= 1  # the difference from the pack
    assert page.evaluate("window.__marker") == "still here"  # no reload happened

    page.click("#criteria-status summary:has-text('Clear override')")  # it asks first
    page.click("#criteria-status button:has-text('Clear override')")
    page.locator("#criteria-status", has_text="These criteria are the pack's own.").wait_for()
    assert page.locator("#field-definition .criteria-text").inner_text() == pack_definition
    assert pack_definition in page.locator("#historian-preview").inner_text()
    assert page.locator("#surface-hash").inner_text() == hash_before[:12]
    assert page.evaluate("window.__marker") == "still here"


def test_a_refused_edit_shows_the_message_in_place(logged_in_page, live_server, project):
    """An emptied definition is refused beside the box, with the box still open."""
    page = logged_in_page("curator")
    page.goto(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    page.click("#field-definition a.edit-field")
    box = page.locator("#field-definition textarea[name=definition]")
    box.wait_for()
    box.fill("")
    # The browser's own `required` check would stop an empty submit; remove it so the
    # server's refusal is what is tested.
    box.evaluate("element => element.removeAttribute('required')")
    page.click("#field-definition button[type=submit]")
    page.locator("#field-definition", has_text="Definition is required").wait_for()
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_a_concurrent_edit_is_refused_in_place_once_and_keeps_the_text(
    logged_in_page, live_server, project
):
    """A save over someone else's is refused in place, said once, with the typed text kept."""
    page = logged_in_page("curator")
    page.goto(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    page.evaluate("window.__marker = 'still here'")
    page.click("#field-definition a.edit-field")
    box = page.locator("#field-definition textarea[name=definition]")
    box.wait_for()
    category = category_by_name(project, "OPS_RULES")
    criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Their definition."},
        actor="system",
    )
    box.fill(NEW_DEFINITION)
    page.click("#field-definition button[type=submit]")

    conflict = page.locator("#editor-section .conflict")
    conflict.wait_for()
    assert page.locator("#editor-section").inner_text().count("Someone else saved") == 1
    assert "Their definition." in conflict.inner_text()
    assert NEW_DEFINITION in conflict.inner_text()
    assert page.locator("#field-definition textarea[name=definition]").input_value() == (
        NEW_DEFINITION
    )
    assert page.evaluate("window.__marker") == "still here"  # swapped in place, no reload

    page.click("#field-definition button[type=submit]")
    page.locator("#field-definition .criteria-text", has_text=NEW_DEFINITION).wait_for()
    assert conflict.count() == 0
    assert category_by_name(project, "OPS_RULES").effective_criteria["definition"] == (
        NEW_DEFINITION
    )


def test_the_copy_button_appears_only_with_javascript(logged_in_page, live_server, project):
    """The preview's copy button is shown when scripts run."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/criteria/{project.pk}/prompts/tool/")
    assert page.locator("button.copy").is_visible()
    assert "category: one of OPS_RULES" in page.locator("#prompt-text").inner_text()


def test_editing_works_without_javascript(browser, live_server, project, people):
    """With JavaScript off, Edit opens the field on a fresh page and Save reloads the page."""
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "curator")
    page.fill("#id_password", "correct horse battery staple")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")  # the overview
    page.goto(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    assert not page.locator("button.copy").is_visible()
    page.click("#field-definition a.edit-field")
    page.wait_for_url("**?edit=definition**")
    page.fill("#field-definition textarea[name=definition]", NEW_DEFINITION)
    page.click("#field-definition button[type=submit]")
    page.wait_for_url(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    assert page.locator("#field-definition .criteria-text").inner_text() == NEW_DEFINITION
    assert NEW_DEFINITION in page.locator("#historian-preview").inner_text()
    assert page.locator(".messages", has_text="Saved.").is_visible()
    page.click("#criteria-status summary:has-text('Clear override')")  # it asks first
    page.click("#criteria-status button:has-text('Clear override')")
    page.wait_for_url(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    assert not category_by_name(project, "OPS_RULES").is_overridden
    context.close()


def test_a_stale_clear_is_refused_in_place_as_an_error(logged_in_page, live_server, project):
    """Clear override after someone else's save: an alert with both texts, then a clear works."""
    category = category_by_name(project, "OPS_RULES")
    pack_definition = category.default_criteria["definition"]
    seen = criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": NEW_DEFINITION},
        actor="system",
    )
    page = logged_in_page("curator")
    page.goto(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    page.evaluate("window.__marker = 'still here'")
    criteria_override_save(
        category=seen,
        criteria={**seen.effective_criteria, "definition": "Their definition."},
        actor="system",
    )
    page.click("#criteria-status summary:has-text('Clear override')")  # it asks first
    page.click("#criteria-status button:has-text('Clear override')")

    alert = page.locator("#editor-section .conflict[role=alert]")
    alert.wait_for()
    assert "the override was not cleared" in alert.inner_text()
    assert "Their definition." in alert.inner_text()
    assert pack_definition in alert.inner_text()
    assert page.locator("#editor-section .saved").count() == 0
    assert page.evaluate("window.__marker") == "still here"  # swapped in place, no reload
    assert category_by_name(project, "OPS_RULES").effective_criteria["definition"] == (
        "Their definition."
    )

    page.click("#criteria-status summary:has-text('Clear override')")  # it asks first
    page.click("#criteria-status button:has-text('Clear override')")
    page.locator("#editor-section .saved", has_text="Override cleared.").wait_for()
    assert alert.count() == 0
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_a_stale_keep_is_refused_in_place_as_an_error(logged_in_page, live_server, project):
    """Keep after the pack moved again: an alert with both defaults, then a keep works."""
    category = category_by_name(project, "OPS_RULES")
    category = criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": NEW_DEFINITION},
        actor="system",
    )
    first_default = category.default_criteria

    def upgrade(definition):
        category.previous_default = category.previous_default or first_default
        category.default_criteria = {**first_default, "definition": definition}
        category.default_moved = True
        category.revision += 1
        category.save()

    upgrade("The pack's second definition.")
    page = logged_in_page("curator")
    page.goto(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    upgrade("The pack's third definition.")
    page.click(".notice.moved button:has-text('Keep the override')")

    alert = page.locator("#editor-section .conflict[role=alert]")
    alert.wait_for()
    assert "the override was not kept" in alert.inner_text()
    assert "The pack's second definition." in alert.inner_text()
    assert "The pack's third definition." in alert.inner_text()
    assert page.locator("#editor-section .saved").count() == 0

    page.click(".notice.moved button:has-text('Keep the override')")
    page.locator("#editor-section .saved", has_text="Override kept.").wait_for()
    assert not category_by_name(project, "OPS_RULES").default_moved


def test_a_list_field_edited_in_place_adds_and_removes_items(logged_in_page, live_server, project):
    """The formset's boxes travel with htmx: a filled empty box adds, an emptied one removes."""
    held = category_by_name(project, "OPS_RULES").effective_criteria["exclusions"]
    page = logged_in_page("curator")
    page.goto(f"{live_server.url}/criteria/{project.pk}/OPS_RULES/")
    page.click("#field-exclusions a.edit-field")
    field = page.locator("#field-exclusions")
    field.locator("textarea").first.wait_for()
    assert field.locator("textarea").count() == len(held) + 2
    field.locator("textarea[name='exclusions-0-text']").fill("")
    field.locator(f"textarea[name='exclusions-{len(held)}-text']").fill("Never a password.")
    field.locator("button[type=submit]").click()
    page.locator("#historian-preview", has_text="Never a password.").wait_for()
    assert category_by_name(project, "OPS_RULES").effective_criteria["exclusions"] == [
        *held[1:],
        "Never a password.",
    ]
