"""Forms for filtering, creating and editing memories. Rules live in the services."""

from django import forms

from memadmin.audit.reason_field import reason_field
from memadmin.core.fragments import LONG_MEMORY_CHARACTERS
from memadmin.projects.models import Project
from memadmin.projects.widgets import ProjectSelect
from memadmin.taxonomy.selectors import category_names
from memadmin.web.number_fields import RowChoiceField, WholeNumberField
from memadmin.web.stored_choices import OUTSIDE_PACK, OUTSIDE_VALUES, keep_stored_choices

from .models import Memory

LIVE, ANY = "live", "any"
STATUS_FILTERS = [
    (LIVE, "Live (active, permanent)"),
    (ANY, "Any status"),
    *Memory.Status.choices,
]
EXPIRING_FILTERS = [("", "Any time"), ("7", "Expiring within 7 days")]
IMPORTANCE_NONE = "none"  # the importance filter's word for memories without one


class MemoryFilterForm(forms.Form):
    """The list's filters. Category matches case-insensitively, a part of a name too."""

    project = RowChoiceField(
        queryset=Project.objects.order_by("name"),
        required=False,
        empty_label="All projects",
        widget=ProjectSelect,
    )
    category = forms.CharField(
        required=False,
        max_length=40,
        widget=forms.TextInput(attrs={"list": "category-names", "autocomplete": "off"}),
        help_text="A name or part of one, any case.",
    )
    status = forms.ChoiceField(choices=STATUS_FILTERS, required=False, initial=LIVE)
    expiring = forms.ChoiceField(choices=EXPIRING_FILTERS, required=False, label="Expires")
    q = forms.CharField(required=False, max_length=200, label="Text")
    importance = forms.RegexField(
        regex=rf"^(\d{{1,3}}|{IMPORTANCE_NONE})$",
        required=False,
        max_length=4,
        help_text=f"A number, or {IMPORTANCE_NONE!r} for memories without one.",
        error_messages={"invalid": f"An importance is a number, or {IMPORTANCE_NONE!r}."},
        widget=forms.TextInput(attrs={"class": "narrow"}),
    )
    min_length = WholeNumberField(
        required=False,
        min_value=1,
        label="Min. length",
        help_text=(
            f"In characters; {LONG_MEMORY_CHARACTERS} or more are the long ones, worth fragmenting."
        ),
        widget=forms.NumberInput(attrs={"placeholder": LONG_MEMORY_CHARACTERS, "class": "narrow"}),
    )

    def selector_filters(self) -> dict:
        """Return the memory_list selector's arguments; no status chosen means live memories."""
        data = self.cleaned_data if self.is_valid() else {}
        status = data.get("status") or LIVE
        return {
            "project": data.get("project"),
            "category": data.get("category", ""),
            "status": "" if status == ANY else status,
            "text": data.get("q", ""),
            "expiring_days": int(data["expiring"]) if data.get("expiring") else None,
            "importance": data.get("importance", ""),
            "min_length": data.get("min_length"),
        }


class MemoryForm(forms.Form):
    """A memory's fields; editing, the stored values are offered even outside the choices."""

    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}))
    category = forms.ChoiceField()
    importance = WholeNumberField(required=False, initial=50)
    scope = forms.ChoiceField(choices=Memory.Scope.choices, initial=Memory.Scope.PROJECT)
    shareable = forms.BooleanField(required=False)
    status = forms.ChoiceField(choices=Memory.Status.choices, initial=Memory.Status.ACTIVE)
    reason = reason_field()
    expected_updated_at = WholeNumberField(required=False, widget=forms.HiddenInput)
    # The store row's revision the page showed (a lifecycle store): the agent may bump it
    # without changing a value memadmin shows.
    expected_revision = WholeNumberField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, project: Project, **kwargs):
        super().__init__(*args, **kwargs)
        names = category_names(project)
        self.fields["category"].choices = [(n, n) for n in names]
        self.fields["importance"].widget.attrs.update({"min": 1, "max": 100})
        # The choices come from the project's pack; the service checks again what changes.
        keep_stored_choices(
            self,
            self.initial,
            {"category": OUTSIDE_PACK, "scope": OUTSIDE_VALUES, "status": OUTSIDE_VALUES},
        )

    def service_fields(self) -> dict:
        """Return the cleaned fields the memory services take."""
        data = self.cleaned_data
        return {
            name: data[name]
            for name in ("content", "category", "importance", "scope", "shareable", "status")
        }


class ProjectChoiceForm(forms.Form):
    project = RowChoiceField(queryset=Project.objects.order_by("name"), widget=ProjectSelect)


class ProjectSwitchForm(forms.Form):
    """The new-memory page's project, one of all by name: a project is always chosen."""

    project = RowChoiceField(
        queryset=Project.objects.order_by("name"),
        empty_label=None,
        label="Project",
        widget=ProjectSelect(attrs={"id": "pick-project"}),
    )
