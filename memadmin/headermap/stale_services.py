"""Write header syncs: "this header's summary matches its details as they are now"."""

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite
from memadmin.core.clock import now_ms
from memadmin.memories.models import Memory

from .models import HeaderSync


@transaction.atomic
def header_mark_synced(
    *, header: Memory, actor, reason: str = "", at_ms: int | None = None
) -> HeaderSync:
    """Record that the header was brought in line with its details now.

    Refused, with nothing written, for a memory that heads no composite or is archived.
    """
    header = Memory.objects.select_for_update().select_related("project").get(pk=header.pk)
    if header.status == Memory.Status.ARCHIVED:
        raise ValidationError(
            f"#{header.display_id} is archived: an archived header is not synced."
        )
    if not Composite.objects.filter(head=header).exists():
        raise ValidationError(f"#{header.display_id} heads no composite: it is not a header.")
    now = at_ms if at_ms is not None else now_ms()
    sync = HeaderSync.objects.filter(header=header).first()
    before = sync.synced_at if sync else None
    with acting(actor=actor, reason=reason):
        if sync is None:
            sync = HeaderSync(header=header)
        sync.synced_at = max(now, before or 0)
        sync.synced_by = as_actor(actor).label
        sync.save()
        audit_record(
            action="header_synced",
            target=header,
            project=header.project,
            category=header.category,
            changes={"synced_at": [before, sync.synced_at]},
        )
    return sync
