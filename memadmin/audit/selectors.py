"""Read the audit trail."""

from django.db.models import QuerySet

from .models import AuditEvent


def events_for_object(object_type: str, object_id) -> QuerySet[AuditEvent]:
    """Return the events about one object, newest first."""
    return AuditEvent.objects.filter(object_type=object_type, object_id=str(object_id))
