"""The history pages render their controls from forms: compare radios and one revert form a row."""

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from memadmin.history.selectors import memory_versions
from memadmin.memories.services import memory_update
from tests.html_tree import attribute, find, find_all, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def edited_memory(make_memory):
    memory = make_memory("Deploy with just deploy.")
    memory_update(memory=memory, actor="historian", content="Deploy by hand.", reason="broken")
    memory_update(memory=memory, actor="historian", content="Deploy on Tuesdays.")
    memory.refresh_from_db()
    return memory


def test_each_version_has_its_radios_and_its_revert_form(client_as, edited_memory):
    """The newest two are chosen for comparing; each older version has its own revert box."""
    first, second, third = memory_versions(edited_memory.pk)
    response = client_as("editor").get(reverse("audit:memory_history", args=[edited_memory.pk]))
    for name, version, checked in [("a", second, " checked"), ("b", third, " checked"),
                                   ("a", first, ""), ("b", first, "")]:  # fmt: skip
        index = [third, second, first].index(version)
        assertContains(
            response,
            f'<input type="radio" name="{name}" value="{version.history_id}" form="compare-form"'
            f' id="id_{name}_{index}"{checked}>',
            html=True,
        )
    for version in (first, second):
        pk = version.history_id
        assertContains(response, f'<label for="reason-{pk}">Why</label>', html=True)
        assertContains(
            response,
            f'<input type="text" name="reason" maxlength="500" id="reason-{pk}">',
            html=True,
        )
        assertContains(
            response,
            f'<input type="hidden" name="version" value="{pk}" id="version-{pk}">',
            html=True,
        )
    page = response.content.decode()
    assert find_all(page, id=f"reason-{third.history_id}") == []  # the current version
    revert = reverse("audit:memory_revert", args=[edited_memory.pk])
    reverts = find_all(page, "form", method="post", action=revert)
    carried = [attribute(find(form, "input", name="version"), "value") for form in reverts]
    assert carried == [
        str(second.history_id),
        str(first.history_id),
    ]  # one form a row, newest first


def test_a_refused_revert_keeps_the_typed_reason_in_its_row(client_as, edited_memory, make_memory):
    """The reason typed for the refused version is still in that version's box."""
    first = memory_versions(edited_memory.pk)[0]
    make_memory("deploy with JUST deploy.")
    response = client_as("editor").post(
        reverse("audit:memory_revert", args=[edited_memory.pk]),
        {
            "version": first.history_id,
            "expected_version": edited_memory.updated_at,
            "reason": "Back to the <script> way",
        },
    )
    assertContains(
        response,
        f'<input type="text" name="reason" value="Back to the &lt;script&gt; way" maxlength="500"'
        f' id="reason-{first.history_id}">',
        html=True,
        status_code=400,
    )


def test_the_compare_page_offers_a_revert_to_its_older_side(client_as, edited_memory):
    """One revert form, its box named revert-reason, going back to the older version."""
    first, second, _ = memory_versions(edited_memory.pk)
    response = client_as("editor").get(
        reverse("audit:memory_compare", args=[edited_memory.pk]),
        {"a": second.history_id, "b": first.history_id},
    )
    assertContains(response, '<label for="revert-reason">Why</label>', html=True)
    assertContains(
        response,
        f'<input type="hidden" name="version" value="{first.history_id}" id="revert-version">',
        html=True,
    )
    revert = reverse("audit:memory_revert", args=[edited_memory.pk])
    (form,) = find_all(response.content.decode(), "form", method="post", action=revert)
    assert find(form, "input", type="hidden", name="version", value=str(first.history_id))
    assert text(find(form, "button", type="submit")) == "Revert to version 1"
