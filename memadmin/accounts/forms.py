"""Forms for people and roles. Rules (unique names, password strength, the last admin) live in services."""

from django import forms

from memadmin.audit.reason_field import reason_field
from memadmin.web.hidden_fields import BackForm
from memadmin.web.stored_choices import keep_stored_choice

from .roles import NO_ROLE, ROLE_DESCRIPTIONS, ROLES
from .themes import Theme

ROLE_CHOICES = [(role, f"{role} ({ROLE_DESCRIPTIONS[role]})") for role in ROLES]
NO_ROLE_LABEL = "no role"  # the label of a person's role select while they have none


class PersonForm(forms.Form):
    username = forms.CharField(max_length=150)
    email = forms.EmailField(required=False)
    role = forms.ChoiceField(choices=ROLE_CHOICES, initial="viewer")
    password = forms.CharField(
        widget=forms.PasswordInput(render_value=False),
        strip=False,
        help_text="They can change it later; at least 8 characters, not a common one.",
    )


class RoleForm(forms.Form):
    """A person's new role and why. The people page holds one per person (`for_person`).

    Bound with the person's role as `initial`: a person with no role is offered "no role",
    chosen, so sending the form untouched leaves them without one (`role` is then "").
    """

    role = forms.ChoiceField(choices=ROLE_CHOICES)
    reason = reason_field(help_text="")
    # The role the page showed: a change over a newer one, or one that says none, is refused.
    shown_role = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "role" in self.initial:
            keep_stored_choice(self.fields["role"], self.initial["role"], empty=NO_ROLE_LABEL)

    @classmethod
    def for_person(cls, person) -> "RoleForm":
        """Return the row form of `person`: boxes role-<pk> and role-reason-<pk>, roles by name.

        The select names roles only, as the table is narrow (the descriptions are listed
        above it).
        """
        form = cls(
            initial={"role": person.role, "shown_role": person.role or NO_ROLE},
            auto_id=f"role-%s-{person.pk}",
        )
        form.fields["role"].widget.choices = [
            (role, label if role == "" else role) for role, label in form.fields["role"].choices
        ]
        form.fields["role"].widget.attrs["id"] = f"role-{person.pk}"
        return form


class ThemeForm(BackForm):
    """The colour theme of every page (at its foot), and the page to go back to."""

    theme = forms.ChoiceField(
        label="Theme",
        choices=Theme.choices,
        error_messages={"invalid_choice": "Choose a theme: system, light or dark."},
        # The id theme.js finds it by; its change applies the theme at once.
        widget=forms.Select(attrs={"id": "theme-choice"}),
    )
