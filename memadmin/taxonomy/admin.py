"""Packs and categories in Django's admin: criteria edited through the criteria services."""

from django import forms
from django.contrib import admin

from memadmin.audit.reason_field import reason_field
from memadmin.web.number_fields import CheckedJSONField
from memadmin.web.service_admin import ReadOnlyAdmin, ServiceAdmin

from .models import Category, Pack, SurfaceHashRecord
from .services import criteria_override_clear, criteria_override_save


@admin.register(Pack)
class PackAdmin(ReadOnlyAdmin):
    """Packs are installed and upgraded with `manage.py pack`, never edited."""

    list_display = ("name", "version", "installed_at")


class CategoryForm(forms.ModelForm):
    reason = reason_field()

    class Meta:
        model = Category
        fields = ("override_criteria",)
        field_classes = {"override_criteria": CheckedJSONField}
        help_texts = {"override_criteria": "People's criteria; empty to use the pack default."}


@admin.register(Category)
class CategoryAdmin(ServiceAdmin):
    """Names, ranks and defaults belong to the pack; only people's override is edited here."""

    form = CategoryForm
    list_display = ("name", "project", "priority", "legacy", "is_overridden", "default_moved")
    list_filter = ("project", "legacy", "default_moved")
    readonly_fields = (
        "project",
        "name",
        "priority",
        "ttl_days",
        "legacy",
        "maps_to",
        "default_criteria",
        "default_moved",
        "previous_default",
        "revision",
    )

    def has_add_permission(self, request) -> bool:
        return False  # categories come from the pack

    def service_save(self, request, instance, data, change):
        if data.get("override_criteria") in (None, {}):
            return criteria_override_clear(
                category=instance, actor=request.user, reason=data["reason"]
            )
        return criteria_override_save(
            category=instance,
            criteria=data["override_criteria"],
            actor=request.user,
            reason=data["reason"],
        )


@admin.register(SurfaceHashRecord)
class SurfaceHashRecordAdmin(ReadOnlyAdmin):
    list_display = ("project", "value", "change", "actor_label", "created_at")
    list_filter = ("project",)
