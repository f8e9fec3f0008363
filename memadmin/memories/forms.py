"""Forms for filtering, creating and editing memories. Rules live in the services."""

from django import forms

from memadmin.number_fields import RowChoiceField, WholeNumberField
from memadmin.taxonomy.selectors import category_names

from .models import Memory, Project


class MemoryFilterForm(forms.Form):
    project = RowChoiceField(
        queryset=Project.objects.order_by("name"), required=False, empty_label="All projects"
    )
    category = forms.CharField(required=False, max_length=40)
    status = forms.ChoiceField(choices=[("", "Any status"), *Memory.Status.choices], required=False)
    q = forms.CharField(required=False, max_length=200, label="Text")


class MemoryForm(forms.Form):
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}))
    category = forms.ChoiceField()
    importance = WholeNumberField(required=False, initial=50)
    scope = forms.ChoiceField(choices=Memory.Scope.choices, initial=Memory.Scope.PROJECT)
    shareable = forms.BooleanField(required=False)
    status = forms.ChoiceField(choices=Memory.Status.choices, initial=Memory.Status.ACTIVE)
    reason = forms.CharField(required=False, max_length=500, help_text="Why (kept in the history).")
    expected_updated_at = WholeNumberField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, project: Project, **kwargs):
        super().__init__(*args, **kwargs)
        names = category_names(project)
        self.fields["category"].choices = [(n, n) for n in names]
        self.fields["importance"].widget.attrs.update({"min": 1, "max": 100})

    def clean_category(self):
        # The choices come from the project's pack; the service checks again.
        return self.cleaned_data["category"]

    def service_fields(self) -> dict:
        """Return the cleaned fields the memory services take."""
        data = self.cleaned_data
        return {
            name: data[name]
            for name in ("content", "category", "importance", "scope", "shareable", "status")
        }


class ProjectChoiceForm(forms.Form):
    project = RowChoiceField(queryset=Project.objects.order_by("name"))
