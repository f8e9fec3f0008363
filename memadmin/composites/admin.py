"""Composites in Django's admin, written through the composite services."""

from django import forms
from django.contrib import admin

from memadmin.audit.reason_field import reason_field
from memadmin.web.service_admin import ReadOnlyAdmin, ServiceAdmin

from .models import Composite, CompositeMember, ReferenceSet
from .services import (
    composite_create,
    composite_delete,
    composite_fingerprint,
    composite_set_title,
    composite_set_type,
)


class CompositeForm(forms.ModelForm):
    reason = reason_field()

    class Meta:
        model = Composite
        fields = ("head", "type", "title")


class MemberInline(admin.TabularInline):
    """Members are added, moved and removed on the composite's page, where the rules are shown."""

    model = CompositeMember
    fields = ("position", "member")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Composite)
class CompositeAdmin(ServiceAdmin):
    form = CompositeForm
    list_display = ("__str__", "type", "project", "head", "cursor")
    list_filter = ("type", "project")
    raw_id_fields = ("head",)
    inlines = (MemberInline,)

    def get_readonly_fields(self, request, obj=None):
        # The head of an existing composite changes only by a merge, which repoints it.
        return ("head", "project", "cursor") if obj is not None else ()

    def version_of(self, obj) -> str:
        """Return the fingerprint the delete confirmation uses: it covers the members too."""
        return composite_fingerprint(obj)

    def service_save(self, request, instance, data, change):
        reason = data["reason"]
        if instance is None:
            return composite_create(
                head=data["head"],
                type=data["type"],
                title=data["title"],
                actor=request.user,
                reason=reason,
            )
        composite = composite_set_type(
            composite=instance, type=data["type"], actor=request.user, reason=reason
        )
        return composite_set_title(
            composite=composite, title=data["title"], actor=request.user, reason=reason
        )

    def service_delete(self, request, obj) -> None:
        composite_delete(composite=obj, actor=request.user)


@admin.register(CompositeMember)
class CompositeMemberAdmin(ReadOnlyAdmin):
    list_display = ("composite", "position", "member")
    raw_id_fields = ("member",)


@admin.register(ReferenceSet)
class ReferenceSetAdmin(ReadOnlyAdmin):
    """Reference sets are frozen snapshots; the database refuses any change to one."""

    list_display = ("ref", "project", "composite_type", "title", "frozen_by")
