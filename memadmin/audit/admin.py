"""The audit trail in Django's admin: read only, as a record of what happened must be."""

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList

from .models import AuditEvent
from .service_admin import ReadOnlyAdmin


class DateCheckedChangeList(ChangeList):
    """A change list whose date links refuse a year, month or day no date has.

    Django's own turns `?created_at__year=99999999` into an OverflowError (a server error);
    this refuses it as the admin refuses any bad filter: the list again, with a notice.
    """

    def get_filters(self, request, *args, **kwargs):
        try:
            return super().get_filters(request, *args, **kwargs)
        except (OverflowError, ValueError) as error:
            raise IncorrectLookupParameters(error) from error


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor_label", "action", "object_type", "object_repr", "project")
    list_filter = ("action", "actor_kind", "project")
    search_fields = ("actor_label", "object_repr", "reason")
    date_hierarchy = "created_at"

    def get_changelist(self, request, **kwargs):
        return DateCheckedChangeList
