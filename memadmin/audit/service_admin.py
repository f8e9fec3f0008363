"""Base classes that make Django's admin go through the services, as every page does.

`ServiceAdmin.save_model` calls the service (`service_save`) with `actor=request.user`, so
an admin edit is validated, audited and versioned like any other. Before that, the form's
`clean` runs the same service in a transaction that is always rolled back: a refusal shows
as a form error, with the service's own message, instead of a failed save. Deleting goes
through `service_delete` where an admin defines it and is disabled otherwise.
`ReadOnlyAdmin` is for models no service writes from the admin: view only.
"""

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction


class _DryRun(Exception):
    """Raised to roll back a service call made only to validate a form."""


class ReadOnlyAdmin(admin.ModelAdmin):
    """Show rows; add, change and delete are refused (the admin writes nothing)."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ServiceAdmin(admin.ModelAdmin):
    """Save through `service_save`; delete through `service_delete`, or not at all."""

    def service_save(self, request, instance, data: dict, change: bool):
        """Call the service for this form's data and return the saved object."""
        raise NotImplementedError

    service_delete = None  # a method (request, obj) -> None, where a delete service exists

    def get_form(self, request, obj=None, change=False, **kwargs):
        form_class = super().get_form(request, obj, change=change, **kwargs)
        model_admin = self

        class CheckedByService(form_class):
            def clean(self):
                cleaned = super().clean()
                if not self.errors:
                    model_admin._dry_run(request, obj, self, change)
                return cleaned

        return CheckedByService

    def _dry_run(self, request, obj, form, change: bool) -> None:
        """Run the service on the form's data and roll it back; report a refusal on the form."""
        try:
            with transaction.atomic():
                self.service_save(request, self._fresh(obj), form.cleaned_data, change)
                raise _DryRun
        except _DryRun:
            pass
        except ValidationError as refused:
            form.add_error(None, refused.messages)

    def _fresh(self, obj):
        """Return the object as stored, not as the form has already changed it."""
        if obj is None or obj.pk is None:
            return None
        return type(obj)._default_manager.get(pk=obj.pk)

    def save_model(self, request, obj, form, change) -> None:
        saved = self.service_save(request, self._fresh(obj), form.cleaned_data, change)
        obj.pk = saved.pk
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change) -> None:
        """Save nothing beside the service: it wrote everything that changes.

        Inlines are read only; they are marked as having saved nothing, which the admin's
        change message reads.
        """
        for formset in formsets:
            formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []

    def has_delete_permission(self, request, obj=None) -> bool:
        return self.service_delete is not None and super().has_delete_permission(request, obj)

    def delete_model(self, request, obj) -> None:
        self.service_delete(request, obj)

    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            try:
                self.service_delete(request, obj)
            except ValidationError as refused:
                messages.error(request, f"{obj}: {' '.join(refused.messages)}")
