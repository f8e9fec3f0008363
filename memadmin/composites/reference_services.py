"""Freeze a composite into a reference set: an immutable snapshot a sub-agent can be handed."""

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.core.hashing import content_digest

from .models import Composite, ReferenceSet
from .positions import member_rows
from .rules import locked_for_edit

NOTE_MAX_CHARS = 2000


def _item(memory, role: str) -> dict:
    return {
        "id": memory.pk,
        "display_id": memory.display_id,
        "role": role,
        "digest": content_digest(memory.content),
    }


def snapshot_ref(*, composite_id: int, frozen_at: int, items: list[dict]) -> str:
    """Return the name of a snapshot: `rs-` and 16 hex digits of the digest of what it holds."""
    listed = ";".join(f"{item['id']}:{item['digest']}" for item in items)
    return "rs-" + content_digest(f"{composite_id}|{frozen_at}|{listed}")[:16]


@transaction.atomic
def reference_set_freeze(
    *, composite: Composite, actor, note: str = "", reason: str = "", at_ms: int | None = None
) -> ReferenceSet:
    """Snapshot the composite now: its head and members in order, each text's digest, the time."""
    if len(note) > NOTE_MAX_CHARS:
        raise ValidationError({"note": f"A note holds at most {NOTE_MAX_CHARS} characters."})
    composite = locked_for_edit(composite)
    rows = member_rows(composite)
    items = [_item(composite.head, "head")] + [_item(row.member, "member") for row in rows]
    frozen_at = at_ms if at_ms is not None else now_ms()
    ref = snapshot_ref(composite_id=composite.pk, frozen_at=frozen_at, items=items)
    with acting(actor=actor, reason=reason):
        try:
            with transaction.atomic():
                reference_set = ReferenceSet.objects.create(
                    ref=ref,
                    project=composite.project,
                    composite=composite,
                    composite_type=composite.type,
                    title=composite.title,
                    items=items,
                    cursor=composite.cursor,
                    frozen_at=frozen_at,
                    frozen_by=as_actor(actor).label,
                    note=note.strip(),
                )
        except IntegrityError as error:
            raise ValidationError(
                "An identical snapshot of this composite was frozen at the same moment."
            ) from error
        audit_record(
            action="reference_set_frozen",
            target=reference_set,
            project=composite.project,
            category=composite.head.category,
            changes={"composite": composite.pk, "ref": ref, "ids": [i["id"] for i in items]},
        )
    return reference_set
