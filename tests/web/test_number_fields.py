"""The form fields every form uses for numbers and rows refuse what the database cannot hold."""

import pytest
from django import forms

from memadmin.core.numbers import BIGINT_MAX
from memadmin.projects.models import Project
from memadmin.web.number_fields import CheckedJSONField, RowChoiceField, WholeNumberField
from tests.html_tree import attribute, find


class NumberForm(forms.Form):
    number = WholeNumberField(required=False)
    small = WholeNumberField(required=False, min_value=1, max_value=100)


@pytest.mark.parametrize("text", ["²", "①", "٣", "\uff11", "1.0", "1e3", "abc", "\x00"])
def test_a_number_in_other_digits_is_invalid(text):
    """Django's IntegerField would read "٣" as 3 and fail on "²"; this refuses both."""
    form = NumberForm({"number": text})
    assert not form.is_valid()
    assert form.errors["number"] == ["Enter a whole number."]


@pytest.mark.parametrize("text", [str(BIGINT_MAX + 1), "99999999999999999999999", "9" * 5000])
def test_a_number_wider_than_the_database_is_invalid(text):
    """No number reaches a query that the widest integer column cannot hold."""
    assert not NumberForm({"number": text}).is_valid()


def test_plain_numbers_and_the_forms_own_bounds_still_work():
    """Spaces around a typed number are forgiven; min and max are the form's."""
    form = NumberForm({"number": " 42 ", "small": "100"})
    assert form.is_valid() and form.cleaned_data == {"number": 42, "small": 100}
    assert not NumberForm({"small": "101"}).is_valid()
    assert attribute(find(str(NumberForm()["small"]), "input", name="small"), "max") == "100"
    number = find(str(NumberForm()["number"]), "input", name="number")
    assert "max" not in number.attributes  # the database's width is not shown


@pytest.mark.django_db
@pytest.mark.parametrize("text", ["٣", "²", "99999999999999999999999", "1\x00"])
def test_a_row_is_chosen_by_an_ascii_id_only(project, text):
    """A project id in other digits or too wide is an invalid choice, before any query."""
    field = RowChoiceField(queryset=Project.objects.all())
    with pytest.raises(forms.ValidationError):
        field.clean(text)
    assert field.clean(str(project.pk)) == project


def test_json_python_cannot_read_is_invalid_not_an_error():
    """A number of thousands of digits in a JSON box is refused as invalid JSON."""
    field = CheckedJSONField()
    with pytest.raises(forms.ValidationError):
        field.clean("9" * 5000)
    assert field.bound_data("9" * 5000, None) == "9" * 5000
