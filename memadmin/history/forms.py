"""Forms of the history area: the audit log's filters, compare and revert. Rules live in services."""

from django import forms

from memadmin.number_fields import RowChoiceField, WholeNumberField
from memadmin.projects.models import Project

from . import selectors


class DateInput(forms.DateInput):
    input_type = "date"


class EventFilterForm(forms.Form):
    """The audit log's filters; every field is optional.

    Actor, category and kind of change are offered as the values the log holds, yet any
    value is accepted: a link to "role changes" is valid before the first one happens.
    """

    actor = forms.CharField(required=False, max_length=150, widget=forms.Select)
    project = RowChoiceField(
        queryset=Project.objects.order_by("name"), required=False, empty_label="All projects"
    )
    category = forms.CharField(required=False, max_length=40, widget=forms.Select)
    action = forms.CharField(
        required=False, max_length=40, widget=forms.Select, label="Kind of change"
    )
    since = forms.DateField(required=False, widget=DateInput, label="From")
    until = forms.DateField(required=False, widget=DateInput, label="To")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        held = selectors.event_choices()
        self.fields["actor"].widget.choices = _choices("Anyone", held["actor"])
        self.fields["category"].widget.choices = _choices("Any category", held["category"])
        self.fields["action"].widget.choices = _choices("Any change", held["action"])

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError("The range starts after it ends.")
        return data

    def filters(self) -> selectors.EventFilters:
        """Return the filters the form holds (none if it is not valid)."""
        if not self.is_valid():
            return selectors.EventFilters()
        return selectors.EventFilters(**self.cleaned_data)


def _choices(anything: str, values: list[str]) -> list[tuple[str, str]]:
    return [("", anything), *((v, v.replace("_", " ")) for v in values)]


class CompareForm(forms.Form):
    """Two versions to compare: `a` the older side, `b` the newer."""

    a = WholeNumberField(min_value=1, widget=forms.HiddenInput)
    b = WholeNumberField(min_value=1, widget=forms.HiddenInput)


class RevertForm(forms.Form):
    """The version to go back to, and why."""

    version = WholeNumberField(min_value=1, widget=forms.HiddenInput)
    reason = forms.CharField(required=False, max_length=500, help_text="Why (kept in the history).")
