"""Base classes that make Django's admin go through the services, as every page does.

`ServiceAdmin.save_model` calls the service (`service_save`) with `actor=request.user`, so
an admin edit is validated, audited and versioned like any other. Before that, the form's
`clean` runs the same service in a transaction that is always rolled back: a refusal shows
as a form error, with the service's own message, instead of a failed save. Deleting goes
through `service_delete` where an admin defines it and is disabled otherwise.
`ReadOnlyAdmin` is for models no service writes from the admin: view only. Number and row
fields are memadmin's strict ones (`memadmin.web.number_fields`).

A change form carries the version of the object it showed (`version_of`, hidden as
`edited_version`). A save whose version is not the stored one (someone saved since the form
was opened), or that sends none, is refused with nothing written: the form comes back with
what the person typed, the values now stored beside it, and the version now stored, so
saving again is a deliberate choice. The row stays locked from that check to the save.
A change form offers a stored value its choices lack, labelled (`memadmin.web.stored_choices`),
so saving it untouched keeps the value; a save that changes nothing writes nothing, not
even an entry in Django's admin log.

Deleting is guarded the same way. The delete confirmation carries the version of the object
it listed, and the bulk "delete selected" confirmation one digest of the versions of every
row it listed (`versions_of`). A confirmation over an object saved since, a row gone or
changed since, or one without its version, deletes nothing: the confirmation comes back
(409) with the objects as they are now and a message saying why.
"""

import hashlib
import json
from dataclasses import replace

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.options import TO_FIELD_VAR, ActionLocation, IncorrectLookupParameters
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import ValidationError
from django.db import models, router, transaction
from django.http import QueryDict
from django.template.response import TemplateResponse

from memadmin.core.numbers import BIGINT_MIN, parse_whole
from memadmin.web.number_fields import RowChoiceField, WholeNumberField
from memadmin.web.store_rehearsal import store_rehearsal
from memadmin.web.stored_choices import OUTSIDE_VALUES, keep_stored_choice

VERSION_FIELD = "edited_version"


class _DryRun(Exception):
    """Raised to roll back a service call made only to validate a form."""


class CheckedChangeList(ChangeList):
    """A change list that refuses a filter no row can match instead of failing on it.

    Django's own turns `?created_at__year=99999999` into an OverflowError, and PostgreSQL
    refuses a NUL byte in any text it is sent (`?status__exact=%00`, `?q=%00`): a server
    error either way. These are refused as the admin refuses any bad filter: the list again,
    with a notice.
    """

    def get_filters(self, request, *args, **kwargs):
        if any("\x00" in value for values in request.GET.lists() for value in values[1]):
            raise IncorrectLookupParameters("A filter holds a NUL byte.")
        try:
            return super().get_filters(request, *args, **kwargs)
        except (OverflowError, ValueError) as error:
            raise IncorrectLookupParameters(error) from error


def object_in_range(model, object_id: str, from_field: str | None) -> bool:
    """Return False for an integer primary key the URL spells out of the database's range.

    Django's admin turns the URL's id into a number and looks it up; one past 64 bits fails
    in the database instead of finding nothing (a key that is a one-to-one link, as
    `StoreBase.memory`, escapes Django's own overflow guard).
    """
    field = model._meta.pk if from_field is None else model._meta.get_field(from_field)
    target = field.target_field if field.is_relation else field
    if not isinstance(target, models.IntegerField | models.AutoField):
        return True
    return parse_whole(object_id, minimum=BIGINT_MIN) is not None


class RangeCheckedAdmin(admin.ModelAdmin):
    """An admin whose change, delete and history pages find nothing for an id out of range."""

    def get_object(self, request, object_id, from_field=None):
        if not object_in_range(self.model, str(object_id), from_field):
            return None
        return super().get_object(request, object_id, from_field)


class ReadOnlyAdmin(RangeCheckedAdmin):
    """Show rows; add, change and delete are refused (the admin writes nothing)."""

    def get_changelist(self, request, **kwargs):
        return CheckedChangeList

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def _shown(value) -> str:
    text = repr(getattr(value, "pk", value))
    return text if len(text) <= 80 else text[:79] + "…"


class ServiceAdmin(RangeCheckedAdmin):
    """Save through `service_save`; delete through `service_delete`, or not at all."""

    def service_save(self, request, instance, data: dict, change: bool):
        """Call the service for this form's data and return the saved object."""
        raise NotImplementedError

    service_delete = None  # a method (request, obj) -> None, where a delete service exists

    # Numbers and rows are read as every form of the dashboard reads them (ASCII digits, in
    # the column's range), not by Django's int().
    formfield_overrides = {
        models.IntegerField: {"form_class": WholeNumberField},
        models.ForeignKey: {"form_class": RowChoiceField},
    }

    # Django's confirmations, with the version of what they list as a hidden field.
    delete_confirmation_template = "admin/checked_delete_confirmation.html"
    delete_selected_confirmation_template = "admin/checked_delete_selected_confirmation.html"

    def get_changelist(self, request, **kwargs):
        return CheckedChangeList

    def versions_of(self, objects) -> str:
        """Return one digest of the versions of `objects`, for a bulk confirmation to carry."""
        values = sorted([str(obj.pk), self.version_of(obj)] for obj in objects)
        return hashlib.sha256(json.dumps(values).encode()).hexdigest()[:32]

    def version_of(self, obj) -> str:
        """Return a digest of the stored object that any save of it moves: every column."""
        values = [(f.attname, f.value_to_string(obj)) for f in obj._meta.concrete_fields]
        return hashlib.sha256(json.dumps(values).encode()).hexdigest()[:32]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            base = kwargs.get("form") or self.form
            version = forms.CharField(required=False, widget=forms.HiddenInput)
            kwargs["form"] = type(base.__name__, (base,), {VERSION_FIELD: version})
        form_class = super().get_form(request, obj, change=change, **kwargs)
        model_admin = self

        class CheckedByService(form_class):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                if VERSION_FIELD in self.fields:
                    self.fields[VERSION_FIELD].initial = model_admin.version_of(self.instance)
                if obj is not None:
                    model_admin.keep_stored_choices(self)

            def clean(self):
                cleaned = super().clean()
                if not self.errors and obj is not None:
                    model_admin._refuse_stale(obj, self)
                if not self.errors:
                    model_admin._dry_run(request, obj, self, change)
                return cleaned

        return CheckedByService

    def keep_stored_choices(self, form) -> None:
        """Offer each stored value its choice field lacks, so an untouched save keeps it."""
        for name, field in form.fields.items():
            if isinstance(field, forms.ChoiceField) and not isinstance(
                field, forms.ModelChoiceField
            ):
                keep_stored_choice(field, form.initial.get(name), note=OUTSIDE_VALUES)

    def log_change(self, request, obj, message):
        """Log a change in Django's admin log, unless nothing changed (then nothing is written)."""
        if not message:
            return None
        return super().log_change(request, obj, message)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or any(VERSION_FIELD in options["fields"] for _, options in fieldsets):
            return fieldsets
        (name, options), *rest = fieldsets
        return [(name, {**options, "fields": (*options["fields"], VERSION_FIELD)}), *rest]

    def _refuse_stale(self, obj, form) -> None:
        """Refuse the form if the object was saved since it was opened, or it sent no version.

        The row is locked until the admin's transaction ends, so nothing saves between this
        check and the service's write.
        """
        stored = type(obj)._default_manager.select_for_update().get(pk=obj.pk)
        current = self.version_of(stored)
        if form.cleaned_data.get(VERSION_FIELD) == current:
            return
        label = obj._meta.verbose_name
        now = [
            f"{name}: now {_shown(getattr(stored, name))}, yours {_shown(value)}"
            for name, value in form.cleaned_data.items()
            if name in {f.name for f in obj._meta.concrete_fields}
            and value != getattr(stored, name)
        ]
        why = (
            f"This {label} was saved by someone else since this form was opened"
            if form.cleaned_data.get(VERSION_FIELD)
            else f"This form did not say which version of the {label} it edits"
        )
        form.add_error(None, f"{why}: nothing was saved.")
        if now:
            form.add_error(None, "Stored now, beside what you typed: " + "; ".join(now) + ".")
        form.add_error(None, "The form keeps what you typed: save again to put it in force.")
        form.data = form.data.copy()
        form.data[VERSION_FIELD] = current  # saving again is made over what is stored now

    def _dry_run(self, request, obj, form, change: bool) -> None:
        """Run the service on the form's data and roll it back; report a refusal on the form."""
        try:
            # The store's own transaction is rolled back too: a rehearsal commits nothing.
            with transaction.atomic(), store_rehearsal():
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

    def _delete_view(self, request, object_id, extra_context):
        """Delete only what the confirmation showed: refuse an object saved since, or no version.

        It runs in a transaction (Django opens one for a POST only, and PostgreSQL refuses a
        row lock outside one), so the row stays locked from the check to the delete. A
        refusal shows the confirmation again, over the object as it is now.
        """
        with transaction.atomic(using=router.db_for_write(self.model)):
            return self._checked_delete_view(request, object_id, extra_context)

    def _checked_delete_view(self, request, object_id, extra_context):
        to_field = request.POST.get(TO_FIELD_VAR, request.GET.get(TO_FIELD_VAR))
        obj = self.get_object(request, unquote(object_id), to_field)
        refused = False
        if obj is not None and self.has_delete_permission(request, obj):
            stored = type(obj)._default_manager.select_for_update().get(pk=obj.pk)
            current = self.version_of(stored)
            if request.POST and request.POST.get(VERSION_FIELD) != current:
                label = obj._meta.verbose_name
                why = (
                    f"This {label} was saved by someone else since this confirmation was shown"
                    if request.POST.get(VERSION_FIELD)
                    else f"This confirmation did not say which version of the {label} it deletes"
                )
                self.message_user(
                    request,
                    f"{why}: nothing was deleted. Check it as it is now and confirm again.",
                    messages.ERROR,
                )
                request.POST = QueryDict()  # the confirmation again, as on opening it
                refused = True
            extra_context = {**(extra_context or {}), VERSION_FIELD: current}
        response = super()._delete_view(request, object_id, extra_context)
        if refused:
            response.status_code = 409
        return response

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location=action_location)
        if "delete_selected" in actions:
            checked = replace(actions["delete_selected"], func=_checked_delete_selected)
            actions["delete_selected"] = checked
        return actions

    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            try:
                self.service_delete(request, obj)
            except ValidationError as refused:
                messages.error(request, f"{obj}: {' '.join(refused.messages)}")


def _checked_delete_selected(modeladmin: ServiceAdmin, request, queryset):
    """Run Django's "delete selected", refused if a row listed changed or went since.

    The rows stay locked from the check to the delete. A refusal (or a confirmation without
    the digest) shows the confirmation again, over the rows as they are now.
    """
    with transaction.atomic():
        locked = modeladmin.model._default_manager.select_for_update()
        rows = list(locked.filter(pk__in=queryset.values("pk")).order_by("pk"))
        current = modeladmin.versions_of(rows)
        refused = bool(request.POST.get("post")) and request.POST.get(VERSION_FIELD) != current
        if refused:
            plural = modeladmin.model._meta.verbose_name_plural
            why = (
                f"Some of these {plural} were changed or deleted by someone else since this "
                "confirmation was shown"
                if request.POST.get(VERSION_FIELD)
                else f"This confirmation did not say which versions of the {plural} it deletes"
            )
            modeladmin.message_user(
                request,
                f"{why}: nothing was deleted. Check them as they are now and confirm again.",
                messages.ERROR,
            )
            request.POST = request.POST.copy()
            del request.POST["post"]  # the confirmation again, as on opening it
        response = delete_selected(modeladmin, request, queryset)
    if isinstance(response, TemplateResponse):
        response.context_data[VERSION_FIELD] = current
        if refused:
            response.status_code = 409
    return response
