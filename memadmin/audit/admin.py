"""The audit trail in Django's admin: read only, as a record of what happened must be."""

from django.contrib import admin

from memadmin.web.service_admin import ReadOnlyAdmin

from .models import AuditEvent, StoreVersion


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor_label", "action", "object_type", "object_repr", "project")
    list_filter = ("action", "actor_kind", "project")
    search_fields = ("actor_label", "object_repr", "reason")
    date_hierarchy = "created_at"


@admin.register(StoreVersion)
class StoreVersionAdmin(ReadOnlyAdmin):
    """The number every recorded write moves on; the ledger keeps prepared stores by it."""

    list_display = ("version",)
