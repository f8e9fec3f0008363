"""The list fields of the criteria editor are formsets: management form, boxes, refusals."""

import pytest
from django.urls import reverse
from django.utils.html import escape
from pytest_django.asserts import assertContains

from memadmin.taxonomy.selectors import category_by_name
from tests.html_tree import attribute, find, find_all

from .test_views import boxes, field_url

pytestmark = pytest.mark.django_db


def test_list_fields_are_formsets_with_a_box_per_item_and_two_to_add(project, client_as):
    """Each list field renders its management form, one box per item and two empty ones."""
    category = category_by_name(project, "OPS_RULES")
    held = category.effective_criteria["positive_examples"]
    edit_url = reverse("taxonomy:edit", args=[project.pk, "OPS_RULES"])
    response = client_as("curator").get(edit_url)
    total = len(held) + 2
    for name, value in [
        ("positive_examples-TOTAL_FORMS", total),
        ("positive_examples-INITIAL_FORMS", len(held)),
    ]:
        assertContains(
            response,
            f'<input type="hidden" name="{name}" value="{value}" id="id_{name}">',
            html=True,
        )
    assertContains(
        response,
        f'<textarea name="positive_examples-0-text" cols="40" rows="2" maxlength="500"'
        f' id="id_positive_examples-0-text">{escape(held[0])}</textarea>',
        html=True,
    )
    page = response.content.decode()
    form = find(page, "form", method="post", action=edit_url)
    named = [attribute(field, "name") for field in find_all(page, name=True)]
    texts = [attribute(box, "name") for box in find_all(form, "textarea")]
    positive = [f"positive_examples-{i}-text" for i in range(total)]  # no box beyond the count
    assert [
        name for name in named if name.startswith("positive_examples-") and "FORMS" not in name
    ] == positive
    assert [name for name in texts if name.startswith("positive_examples-")] == positive
    assert named.count("negative_examples-0-reason") == 1
    assert len(find_all(form, name="negative_examples-0-reason")) == 1


def test_a_list_field_posted_without_its_management_form_is_refused(project, client_as):
    """Boxes without the count of boxes are refused with a clear error; nothing changes."""
    category = category_by_name(project, "OPS_RULES")
    data = {"revision": category.revision, "exclusions-0-text": "Never this."}
    response = client_as("curator").post(field_url(project, "exclusions"), data)
    assert response.status_code == 400
    assertContains(
        response, "Never record: the form did not say how many boxes it sent", status_code=400
    )
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_too_many_boxes_are_refused_before_they_are_read(project, client_as):
    """A post claiming more boxes than any page shows is refused with the limit named."""
    category = category_by_name(project, "OPS_RULES")
    data = {"revision": category.revision, **boxes("exclusions", ["One."])}
    data["exclusions-TOTAL_FORMS"] = 10_000
    response = client_as("curator").post(field_url(project, "exclusions"), data)
    assertContains(response, "Never record: at most 20 items.", status_code=400)
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_a_reason_without_its_example_is_refused_beside_the_example(project, client_as):
    """The pair's missing half is named beside its box."""
    category = category_by_name(project, "OPS_RULES")
    data = {
        "revision": category.revision,
        **boxes("negative_examples", [{"example": "", "reason": "Because."}]),
    }
    response = client_as("curator").post(field_url(project, "negative_examples"), data)
    assertContains(response, "Give the example this reason is about.", status_code=400)
    assert not category_by_name(project, "OPS_RULES").is_overridden
