"""The project page's rename form."""

from django import forms

from memadmin.audit.reason_field import reason_field

from .models import NAME_MAX_CHARS, Project


class RenameForm(forms.Form):
    """A project's new name and why, with the name the page showed (`shown_name`)."""

    name = forms.CharField(
        max_length=NAME_MAX_CHARS,
        label="Name",
        help_text="What every page calls this project. No sync renames it after you do.",
        error_messages={"required": "Write a name for the project."},
    )
    reason = reason_field()
    # The name the page showed: a rename over a newer one, or one that says none, is refused.
    shown_name = forms.CharField(
        required=False, max_length=NAME_MAX_CHARS, widget=forms.HiddenInput
    )

    @classmethod
    def for_project(cls, project: Project, data=None) -> "RenameForm":
        """Return the form for `project`, bound to `data` when given."""
        return cls(data, initial={"name": project.name, "shown_name": project.name})
