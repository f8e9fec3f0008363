"""Forms for people and roles. Rules (unique names, password strength, the last admin) live in services."""

from django import forms

from memadmin.audit.reason_field import reason_field

from .roles import NO_ROLE, ROLE_DESCRIPTIONS, ROLES

ROLE_CHOICES = [(role, f"{role} ({ROLE_DESCRIPTIONS[role]})") for role in ROLES]


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
    """A person's new role and why. The people page holds one per person (`for_person`)."""

    role = forms.ChoiceField(choices=ROLE_CHOICES)
    reason = reason_field(help_text="")
    # The role the page showed: a change over a newer one, or one that says none, is refused.
    shown_role = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)

    @classmethod
    def for_person(cls, person) -> "RoleForm":
        """Return the row form of `person`: boxes role-<pk> and role-reason-<pk>, roles by name.

        A person with no role has the first role shown; the select names roles only, as
        the table is narrow (the descriptions are listed above it).
        """
        form = cls(
            initial={"role": person.role, "shown_role": person.role or NO_ROLE},
            auto_id=f"role-%s-{person.pk}",
        )
        form.fields["role"].widget.choices = [(role, role) for role in ROLES]
        form.fields["role"].widget.attrs["id"] = f"role-{person.pk}"
        return form
