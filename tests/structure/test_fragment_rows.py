"""The fragment page's rows are a formset: one form per fragment after the first, with its
management form; refusals name the row or the box, and change nothing."""

import pytest
from pytest_django.asserts import assertContains, assertNotContains

from memadmin.audit.models import AuditEvent
from memadmin.memories.models import Memory

from .test_fragment_views import APPLY, SOP, rows, start_boxes, url

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def long_memory(remember):
    return remember(SOP)


def unchanged(memory, count: int, events: int) -> bool:
    """Return True when fragmenting wrote nothing: no memory, no event, the original live."""
    return (
        Memory.objects.count() == count
        and AuditEvent.objects.count() == events
        and Memory.objects.get(pk=memory.pk).status == Memory.Status.ACTIVE
    )


def test_each_row_is_a_form_of_the_formset_with_its_management_form(client_as, long_memory):
    """The proposal's three boundaries are three forms: a start box and a merge box each."""
    response = client_as("editor").get(url(long_memory))
    for name, value in [("TOTAL_FORMS", 3), ("INITIAL_FORMS", 3), ("MAX_NUM_FORMS", 4)]:
        assertContains(
            response,
            f'<input type="hidden" name="boundary-{name}" value="{value}" id="id_boundary-{name}">',
            html=True,
        )
    assertContains(
        response,
        '<input type="number" name="boundary-1-start" value="4" min="2" max="5"'
        ' id="id_boundary-1-start">',
        html=True,
        count=1,
    )
    assertContains(
        response,
        '<label class="visually-hidden" for="id_boundary-1-start">Fragment 3 starts on line</label>',
        html=True,
    )
    assertContains(
        response,
        '<input type="checkbox" name="boundary-1-merge" id="id_boundary-1-merge">',
        html=True,
        count=1,
    )
    assertContains(response, '<label for="id_boundary-1-merge">into fragment 2</label>', html=True)
    assertContains(
        response,
        '<input type="number" name="split_at" min="2" max="5" id="id_split_at">',
        html=True,
    )
    assertContains(
        response, '<label for="id_split_at">Start a new fragment on line</label>', html=True
    )
    assertNotContains(response, 'name="boundary-3-start"')


def test_a_new_start_line_becomes_a_row_in_order_and_its_box_empties(client_as, long_memory):
    """Starting a fragment on line 4 of 3 and 5 gives three rows, 3, 4 and 5."""
    response = client_as("editor").get(url(long_memory), rows(3, 5, split_at=4), headers=HTMX)
    body = response.content.decode()
    assert "3 details" not in body and "4 details" in body
    for index, line in enumerate([3, 4, 5]):
        assertContains(response, f'name="boundary-{index}-start" value="{line}"', count=1)
    assertContains(
        response,
        '<input type="number" name="split_at" min="2" max="5" id="id_split_at">',
        html=True,
    )


def test_an_emptied_start_merges_its_fragment_into_the_one_before(client_as, long_memory):
    """A row with no start line is no boundary: its fragment is the one before's."""
    response = client_as("editor").get(url(long_memory), rows(3, "", 5), headers=HTMX)
    body = response.content.decode()
    assert "3 details" in body
    assert start_boxes(body) == ["boundary-0-start", "boundary-1-start"]
    assert (
        "1. Build with make release, after checking that the changelog names every change.\n2."
        in body
    )


def test_merging_without_javascript_posts_the_rows(client_as, long_memory):
    """The preview button posts the formset: merging fragment 3 gives three details."""
    response = client_as("editor").post(
        url(long_memory), {"preview": "1", **rows(3, 4, 5, merge={3})}
    )
    assert response.status_code == 200
    assert "3 details" in response.content.decode()
    assert Memory.objects.get(pk=long_memory.pk).status == Memory.Status.ACTIVE


def test_a_start_outside_the_text_is_refused_beside_its_box(client_as, long_memory):
    """Line 99 of five: the error is under that row's box, which names it; no preview."""
    response = client_as("editor").get(url(long_memory), rows(3, 99, 5), headers=HTMX)
    assert response.status_code == 200  # a preview: htmx swaps it in, the error shown
    assertContains(
        response,
        '<span class="error" id="id_boundary-1-start_error">Line 99 is outside the text: '
        "a fragment starts on line 2 to 5.</span>",
        html=True,
    )
    assertContains(
        response,
        '<input type="number" name="boundary-1-start" value="99" min="2" max="5" aria-invalid="true"'
        ' aria-describedby="id_boundary-1-start_error" id="id_boundary-1-start">',
        html=True,
    )
    assertContains(response, "Correct the lines marked below")
    assertNotContains(response, "fragment-text")


@pytest.mark.parametrize("value", ["abc", "²", "1.5", "9" * 30])
def test_a_start_that_is_not_a_line_number_is_refused_beside_its_box(client_as, long_memory, value):
    """Anything but ASCII digits is refused as a line number, under its box, as typed."""
    response = client_as("editor").get(url(long_memory), rows(3, value, 5), headers=HTMX)
    body = response.content.decode()
    assert 'id="id_boundary-1-start_error"' in body
    assert "fragment-text" not in body
    assert f'name="boundary-1-start" value="{value}"' in body


def test_a_new_start_outside_the_text_is_refused_and_splits_nothing(client_as, long_memory):
    """Applying with line 1 as a new start: 400, the error under that box, nothing written."""
    count, events = Memory.objects.count(), AuditEvent.objects.count()
    data = {**APPLY, "split_at": "1", "expected_updated_at": str(long_memory.updated_at)}
    response = client_as("editor").post(url(long_memory), data)
    assert response.status_code == 400
    assertContains(
        response,
        '<span class="error" id="id_split_at_error">Line 1 is outside the text: a fragment '
        "starts on line 2 to 5.</span>",
        html=True,
        status_code=400,
    )
    assertContains(
        response,
        '<input type="number" name="split_at" value="1" min="2" max="5" aria-invalid="true"'
        ' aria-describedby="id_split_at_error" id="id_split_at">',
        html=True,
        status_code=400,
    )
    assert unchanged(long_memory, count, events)


def test_rows_without_their_management_form_are_refused_and_split_nothing(client_as, long_memory):
    """Start lines that do not say how many rows were sent: 400, a clear message, nothing split."""
    count, events = Memory.objects.count(), AuditEvent.objects.count()
    data = {key: value for key, value in APPLY.items() if "_FORMS" not in key}
    response = client_as("editor").post(
        url(long_memory), {**data, "expected_updated_at": str(long_memory.updated_at)}
    )
    assertContains(
        response, "The form did not say how many rows of the split it sent", status_code=400
    )
    assert unchanged(long_memory, count, events)


def test_applying_with_no_rows_at_all_is_refused(client_as, long_memory):
    """An apply that sends no split at all splits nothing (it no longer applies the proposal)."""
    count, events = Memory.objects.count(), AuditEvent.objects.count()
    data = {key: value for key, value in APPLY.items() if not key.startswith("boundary-")}
    response = client_as("editor").post(
        url(long_memory), {**data, "expected_updated_at": str(long_memory.updated_at)}
    )
    assertContains(
        response, "The form did not say how many rows of the split it sent", status_code=400
    )
    assert unchanged(long_memory, count, events)


@pytest.mark.parametrize("total", ["5", "2000", "99999999999999999999"])
def test_more_rows_than_the_text_has_lines_are_refused(client_as, long_memory, total):
    """Five lines make at most four rows: a post claiming more is refused whole, nothing split."""
    count, events = Memory.objects.count(), AuditEvent.objects.count()
    data = {**APPLY, "boundary-TOTAL_FORMS": total, "boundary-3-start": "2"}
    response = client_as("editor").post(
        url(long_memory), {**data, "expected_updated_at": str(long_memory.updated_at)}
    )
    assertContains(
        response,
        "The form sent more rows than the page shows: this text has 5 lines, so at most 4 "
        "fragments start after the first.",
        status_code=400,
    )
    assert len(start_boxes(response.content.decode())) == 3  # the proposal, shown again
    assert unchanged(long_memory, count, events)


def test_a_row_beyond_those_counted_is_refused(client_as, long_memory):
    """A start line in a row the management form did not count is refused, not dropped."""
    count, events = Memory.objects.count(), AuditEvent.objects.count()
    data = {**APPLY, "boundary-7-start": "2", "expected_updated_at": str(long_memory.updated_at)}
    response = client_as("editor").post(url(long_memory), data)
    assertContains(response, "The form sent rows beyond the 3 it counted", status_code=400)
    assert unchanged(long_memory, count, events)


def test_a_preview_with_malformed_rows_is_refused_too(client_as, long_memory):
    """Rows without their count are refused on a preview as well (400), not read in part."""
    data = {key: value for key, value in rows(3, 5).items() if "_FORMS" not in key}
    response = client_as("editor").get(url(long_memory), data)
    assertContains(
        response, "The form did not say how many rows of the split it sent", status_code=400
    )
    assertNotContains(response, "fragment-text", status_code=400)
