"""Memories in Django's admin, written through the memory services."""

from django import forms
from django.contrib import admin

from memadmin.audit.reason_field import reason_field
from memadmin.web.hidden_fields import carry
from memadmin.web.service_admin import ReadOnlyAdmin, ServiceAdmin

from .models import Memory, MemorySize
from .revision_fields import StoreRevisionsField, revision_for, revisions_text
from .services import EDITABLE_FIELDS, memory_create, memory_update


class MemoryForm(forms.ModelForm):
    reason = reason_field()
    # The row's store revision as the page read it (a lifecycle store; empty otherwise).
    store_revisions = StoreRevisionsField()

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
        return (*editable, "reason", "store_revisions", *readonly)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form_class = super().get_form(request, obj, change=change, **kwargs)
        if obj is None:
            return form_class
        revisions = revisions_text([obj])

        class WithStoreRevision(form_class):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.fields["store_revisions"].initial = revisions

        return WithStoreRevision

    def _dry_run(self, request, obj, form, change: bool) -> None:
        super()._dry_run(request, obj, form, change)
        if form.errors and obj is not None:
            # Saving again is over the store's row as it is now, its revision included.
            carry(form, "store_revisions", revisions_text([obj]))

    def service_save(self, request, instance, data, change):
        fields = {name: data[name] for name in EDITABLE_FIELDS if name in data}
        if instance is None:
            return memory_create(
                project=data["project"], actor=request.user, reason=data["reason"], **fields
            )
        return memory_update(
            memory=instance,
            actor=request.user,
            reason=data["reason"],
            expected_revision=revision_for(data.get("store_revisions"), instance),
            **fields,
        )


@admin.register(MemorySize)
class MemorySizeAdmin(ReadOnlyAdmin):
    """Sizes are written by the database's triggers, never by hand."""

    list_display = ("memory_id", "tokens", "content_digest")
