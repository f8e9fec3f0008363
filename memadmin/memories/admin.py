"""Memories in Django's admin, written through the memory services."""

from django import forms
from django.contrib import admin

from memadmin.audit.reason_field import reason_field
from memadmin.service_admin import ReadOnlyAdmin, ServiceAdmin

from .models import Memory, MemorySize
from .services import EDITABLE_FIELDS, memory_create, memory_update


class MemoryForm(forms.ModelForm):
    reason = reason_field()

    class Meta:
        model = Memory
        fields = ("project", *EDITABLE_FIELDS)


@admin.register(Memory)
class MemoryAdmin(ServiceAdmin):
    form = MemoryForm
    list_display = ("id", "project", "category", "short_content", "status", "importance")
    list_filter = ("status", "project", "category")
    search_fields = ("content",)
    list_select_related = ("project",)

    @admin.display(description="content")
    def short_content(self, memory: Memory) -> str:
        return memory.content if len(memory.content) <= 80 else memory.content[:79] + "…"

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        # Everything but the editable fields is written by syncs, merges and the agents.
        editable = {"reason", *EDITABLE_FIELDS}
        if obj.superseded_by_id:
            # memory_update does not refuse a new status; a superseded memory made active
            # again would stand beside its successor. Undoing the merge is the way back.
            editable.discard("status")
        return ("project", *(f.name for f in Memory._meta.fields if f.name not in editable))

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("project", *EDITABLE_FIELDS, "reason")
        readonly = self.get_readonly_fields(request, obj)
        editable = (name for name in EDITABLE_FIELDS if name not in readonly)
        return (*editable, "reason", *readonly)

    def service_save(self, request, instance, data, change):
        fields = {name: data[name] for name in EDITABLE_FIELDS if name in data}
        if instance is None:
            return memory_create(
                project=data["project"], actor=request.user, reason=data["reason"], **fields
            )
        return memory_update(memory=instance, actor=request.user, reason=data["reason"], **fields)


@admin.register(MemorySize)
class MemorySizeAdmin(ReadOnlyAdmin):
    """Sizes are written by the database's triggers, never by hand."""

    list_display = ("memory_id", "tokens", "content_digest")
