"""Forms for people and roles. Rules (unique names, password strength, the last admin) live in services."""

from django import forms

from .roles import ROLE_DESCRIPTIONS, ROLES

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
    role = forms.ChoiceField(choices=ROLE_CHOICES)
    reason = forms.CharField(required=False, max_length=500)
