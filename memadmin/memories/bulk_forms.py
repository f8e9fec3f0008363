"""Forms of bulk curation and merging. They parse what people send; the services hold the rules."""

from django import forms

from memadmin.composites.models import Composite
from memadmin.core.numbers import parse_id
from memadmin.number_fields import RowChoiceField, WholeNumberField
from memadmin.taxonomy.models import Category

from .bulk_services import ACTIONS

MERGE = "merge"


class SelectedIdsField(forms.Field):
    """The ids of the ticked rows; the services check what each memory allows."""

    widget = forms.MultipleHiddenInput
    default_error_messages = {
        "required": "Select at least one memory.",
        "invalid": "A selected row is not a memory id.",
    }

    def to_python(self, value) -> list[int]:
        values = [value] if isinstance(value, str) else list(value or [])
        ids = [parse_id(str(item)) for item in values]
        if None in ids:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return list(dict.fromkeys(ids))


class BulkForm(forms.Form):
    """The selection and the action, from the memory list or the confirmation page."""

    ids = SelectedIdsField(label="Memories")
    action = forms.ChoiceField(choices=[*ACTIONS.items(), (MERGE, "merge into one")])
    category = forms.ChoiceField(
        required=False, label="Category", widget=forms.Select(attrs={"id": "bulk-category"})
    )
    composite = RowChoiceField(
        queryset=Composite.objects.select_related("head").order_by("pk"),
        required=False,
        label="Composite",
    )
    reason = forms.CharField(
        required=False,
        max_length=500,
        label="Why (optional)",
        help_text="Kept as the reason on the history of every memory this changes.",
        error_messages={"max_length": "Keep the reason to %(limit_value)d characters at most."},
    )
    expected = WholeNumberField(required=False, widget=forms.HiddenInput, min_value=0)
    # The review's BulkPlan.fingerprint: the confirmation is refused if a row changed since.
    fingerprint = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)
    next = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["category"].choices = [("", "—"), *category_choices()]

    def only_reason_refused(self) -> bool:
        """Return True if the reason is the only thing refused (the review can be shown again)."""
        return set(self.errors) == {"reason"}

    def clean_next(self) -> str:
        """Keep only a path on this site (a list page with its filters)."""
        target = self.cleaned_data.get("next") or ""
        return target if target.startswith("/") and not target.startswith("//") else ""


def category_choices() -> list[tuple[str, str]]:
    """Return every category name of any project's pack, sorted."""
    names = sorted(set(Category.objects.values_list("name", flat=True)))
    return [(name, name) for name in names]


class MergeForm(forms.Form):
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        label="Merged text",
        help_text="Write the one memory that replaces them.",
    )
    importance = WholeNumberField(
        required=False,
        min_value=1,
        max_value=100,
        help_text="Empty: the highest of the sources'.",
    )
    reason = forms.CharField(required=False, max_length=500, help_text="Why (kept in the history).")


def composite_choices(project=None):
    """Return the composites a selection can be added to: the project's, or all, with heads."""
    composites = Composite.objects.select_related("head", "project").order_by("project__name", "pk")
    return composites.filter(project=project) if project is not None else composites
