"""The forms of the stale queue: its project filter, and "mark synced" with its note and the
version of what was reviewed."""

from django import forms

from memadmin.memories.selectors import project_list
from memadmin.projects.widgets import ProjectSelect
from memadmin.web.number_fields import RowChoiceField

NOTE_MAX_CHARS = 200


class StaleFilterForm(forms.Form):
    """The queue's project; none, or one that is not a project, is every project."""

    project = RowChoiceField(
        queryset=project_list(),
        required=False,
        empty_label="every project",
        label="Project",
        widget=ProjectSelect(attrs={"id": "stale-project"}),
    )

    def chosen_project(self):
        """Return the project chosen, or None for every project."""
        return self.cleaned_data["project"] if self.is_valid() else None


class MarkSyncedForm(forms.Form):
    reason = forms.CharField(
        required=False,
        max_length=NOTE_MAX_CHARS,
        label="Note",
        widget=forms.TextInput(attrs={"placeholder": "optional"}),
        error_messages={"max_length": "Keep the note to %(limit_value)d characters at most."},
    )
    # StaleHeader.version of the queue entry reviewed: marking is refused if it moved since.
    version = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    @classmethod
    def for_entry(cls, entry, *, note: str = "") -> "MarkSyncedForm":
        """Return the form of a queue entry: its boxes are sync-reason-<header's pk>."""
        return cls(
            initial={"version": entry.version, "reason": note},
            auto_id=f"sync-%s-{entry.header.pk}",
            label_suffix="",
        )

    @classmethod
    def for_draft(cls, entry) -> "MarkSyncedForm":
        """Return the entry's "accept the draft" form: its boxes are draft-reason-<header's pk>."""
        return cls(
            initial={"version": entry.version},
            auto_id=f"draft-%s-{entry.header.pk}",
            label_suffix="",
        )

    def refusal(self) -> forms.ValidationError:
        """Return the form's errors as one refusal, for the queue to show."""
        return forms.ValidationError([e for errors in self.errors.values() for e in errors])
