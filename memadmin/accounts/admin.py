"""People in Django's admin, created and given roles through the account services.

Django's own user and group pages would let an admin change groups and superuser flags by
hand, around the role rules (one role each, the last admin kept); they are replaced here.
"""

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from memadmin.audit.reason_field import reason_field
from memadmin.web.service_admin import ReadOnlyAdmin, ServiceAdmin
from memadmin.web.stored_choices import keep_stored_choice

from .forms import NO_ROLE_LABEL, ROLE_CHOICES
from .roles import role_of
from .services import person_create, person_set_role

User = get_user_model()


class PersonAddForm(forms.ModelForm):
    role = forms.ChoiceField(choices=ROLE_CHOICES, initial="viewer")
    password = forms.CharField(widget=forms.PasswordInput, strip=False)

    class Meta:
        model = User
        fields = ("username", "email")

    def validate_unique(self):
        """Leave the unique name to the service, which says so in its own words."""


class PersonRoleForm(forms.ModelForm):
    role = forms.ChoiceField(choices=ROLE_CHOICES)
    reason = reason_field()

    class Meta:
        model = User
        fields = ()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            role = role_of(self.instance)
            self.fields["role"].initial = role
            # A person with no role is offered "no role", chosen: saving leaves them so.
            keep_stored_choice(self.fields["role"], role, empty=NO_ROLE_LABEL)


for model in (User, Group):
    if admin.site.is_registered(model):
        admin.site.unregister(model)


@admin.register(User)
class PersonAdmin(ServiceAdmin):
    list_display = ("username", "email", "role", "is_active", "last_login")
    search_fields = ("username", "email")
    readonly_fields = ("username", "email", "is_active", "last_login", "date_joined")

    @admin.display(description="role")
    def role(self, user) -> str:
        return role_of(user) or "no role"

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = PersonRoleForm if obj is not None else PersonAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("username", "email", "role", "password")
        return ("role", "reason", *self.readonly_fields)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is not None else ()

    def version_of(self, obj) -> str:
        """Return the person's role and state: what this form changes (not their last login)."""
        return f"{role_of(obj) or '-'}:{obj.is_active}"

    def service_save(self, request, instance, data, change):
        if instance is None:
            return person_create(
                username=data["username"],
                email=data.get("email", ""),
                role=data["role"],
                password=data["password"],
                actor=request.user,
            )
        if data["role"]:  # empty only for a person with no role, left without one
            person_set_role(
                user=instance, role=data["role"], actor=request.user, reason=data["reason"]
            )
        return instance


@admin.register(Group)
class RoleGroupAdmin(ReadOnlyAdmin):
    """The four role groups are fixed; people get a role on their own page."""
