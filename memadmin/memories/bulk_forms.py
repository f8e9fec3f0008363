"""Forms of bulk curation and merging. They parse what people send; the services hold the rules."""

from django import forms
from django.db.models import Count

from memadmin.composites.models import Composite
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
        if not all(str(item).isdigit() for item in values):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return list(dict.fromkeys(int(item) for item in values))


class BulkForm(forms.Form):
    """The selection and the action, from the memory list or the confirmation page."""

    ids = SelectedIdsField(label="Memories")
    action = forms.ChoiceField(choices=[*ACTIONS.items(), (MERGE, "merge into one")])
    category = forms.ChoiceField(
        required=False, label="Category", widget=forms.Select(attrs={"id": "bulk-category"})
    )
    composite = forms.ModelChoiceField(
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
    expected = forms.IntegerField(required=False, widget=forms.HiddenInput, min_value=0)
    # The review's BulkPlan.fingerprint: the confirmation is refused if a row changed since.
    fingerprint = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)
    next = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, categories: list[tuple[str, str]] | None = None, **kwargs):
        """Offer `categories` for a move (the list's selection), else every known category."""
        super().__init__(*args, **kwargs)
        self.fields["category"].choices = [("", "—"), *(categories or category_choices())]

    def only_reason_refused(self) -> bool:
        """Return True if the reason is the only thing refused (the review can be shown again)."""
        return set(self.errors) == {"reason"}

    def clean_next(self) -> str:
        """Keep only a path on this site (a list page with its filters)."""
        target = self.cleaned_data.get("next") or ""
        return target if target.startswith("/") and not target.startswith("//") else ""


def category_choices(project=None, *, common: bool = False) -> list[tuple[str, str]]:
    """Return category names to move memories to, sorted.

    For a project: its writable categories. With `common`: the writable names every project
    with a pack defines, so a move from "All projects" offers only what each row can take.
    Otherwise: every category name of any project's pack.
    """
    categories = Category.objects.all()
    if project is not None:
        categories = categories.filter(project=project, legacy=False)
    elif common:
        projects = Category.objects.values("project").distinct().count()
        names = (
            categories.filter(legacy=False)
            .values("name")
            .annotate(projects=Count("project", distinct=True))
            .filter(projects=projects)
            .values_list("name", flat=True)
        )
        return [(name, name) for name in sorted(names)]
    names = sorted(set(categories.values_list("name", flat=True)))
    return [(name, name) for name in names]


class MergeForm(forms.Form):
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        label="Merged text",
        help_text="Write the one memory that replaces them.",
    )
    importance = forms.IntegerField(
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
