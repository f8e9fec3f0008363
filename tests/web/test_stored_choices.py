"""A choice field offers the stored value its choices lack, labelled, and nothing else."""

from django import forms

from memadmin.web.stored_choices import OUTSIDE_VALUES, keep_stored_choice, keep_stored_choices


def field(*choices) -> forms.ChoiceField:
    return forms.ChoiceField(choices=[(c, c) for c in choices])


def test_a_value_outside_the_choices_is_offered_last_and_labelled():
    """OPS_RULES under the magic-context pack: offered, labelled, and valid when posted."""
    category = field("PROJECT_RULES", "ARCHITECTURE")
    keep_stored_choice(category, "OPS_RULES")
    assert category.choices[-1] == ("OPS_RULES", "OPS_RULES (not in this project's pack)")
    assert category.clean("OPS_RULES") == "OPS_RULES"


def test_a_value_the_choices_hold_or_an_empty_one_adds_nothing():
    """Known values and empty ones leave the choices as they are."""
    category = field("PROJECT_RULES", "ARCHITECTURE")
    for value in ("PROJECT_RULES", "", None):
        keep_stored_choice(category, value)
    assert category.choices == [
        ("PROJECT_RULES", "PROJECT_RULES"),
        ("ARCHITECTURE", "ARCHITECTURE"),
    ]


def test_grouped_choices_are_searched_and_numbers_compared_as_posted():
    """A value inside an option group is known; 50 and "50" are the same choice."""
    grouped = forms.ChoiceField(choices=[("Current", [("a", "a")]), ("Old", [("50", "50")])])
    keep_stored_choice(grouped, "a")
    keep_stored_choice(grouped, 50)
    assert len(grouped.choices) == 2


def test_a_form_keeps_each_named_field_with_its_note():
    """`keep_stored_choices` takes the stored values and each field's note."""

    class Form(forms.Form):
        scope = forms.ChoiceField(choices=[("project", "project")])
        status = forms.ChoiceField(choices=[("active", "active")])

    form = Form(initial={"scope": "galaxy", "status": "active"})
    keep_stored_choices(form, form.initial, {"scope": OUTSIDE_VALUES, "status": OUTSIDE_VALUES})
    assert form.fields["scope"].choices[-1] == ("galaxy", "galaxy (not one of memadmin's values)")
    assert len(form.fields["status"].choices) == 1


def test_no_stored_value_is_offered_only_when_labelled():
    """A person with no role: "no role" comes first, and the field takes it."""
    role = field("viewer", "editor")
    keep_stored_choice(role, None)
    assert len(role.choices) == 2
    keep_stored_choice(role, None, empty="no role")
    assert role.choices[0] == ("", "no role")
    assert role.clean("") == ""
