"""Archive memories, alone or superseded by a successor, and set what an archive or restore changes.

The `mark_*` helpers and `statuses_before_archive` serve one memory or many: curation.bulk_services
archives and restores through them; memory_update archives through `mark_archived` and
drops the archive reason with `forget_archive_reason`.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import OuterRef, Subquery

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.projects.store import StoreChange, store_backend

from .models import Memory


def mark_archived(memory: Memory, *, reason: str, now: int) -> dict:
    """Set the fields archiving changes on `memory` (unsaved); return the audit changes.

    Every archive goes through here, one memory or many: the reason is kept in the
    metadata, as upstream's archive action does, and `updated_at` moves forward.
    """
    old_status = memory.status
    memory.status = Memory.Status.ARCHIVED
    if reason:
        memory.metadata = {**(memory.metadata or {}), "archive_reason": reason}
    memory.updated_at = max(now, memory.updated_at + 1)
    return {"status": [old_status, Memory.Status.ARCHIVED]}


def mark_restored(memory: Memory, *, status: str, now: int) -> dict:
    """Set the fields a restore to `status` changes on `memory` (unsaved); return the audit changes."""
    old_status = memory.status
    memory.status = status
    memory.updated_at = max(now, memory.updated_at + 1)
    return {"status": [old_status, status], **forget_archive_reason(memory)}


def forget_archive_reason(memory: Memory) -> dict:
    """Drop the archive reason from `memory`'s metadata (unsaved); return the audit change.

    Every restore does this, one memory or many: a memory back in use is no longer archived
    because of anything. The reason stays in the history, on the archive's version and event.
    """
    metadata = dict(memory.metadata or {})
    if "archive_reason" not in metadata:
        return {}
    del metadata["archive_reason"]
    old, memory.metadata = memory.metadata, metadata
    return {"metadata": [old, metadata]}


def statuses_before_archive(memory_ids) -> dict[int, str]:
    """Return, by primary key, the status each memory had before it was last archived.

    This is the status a restore brings back, read from the memory's history: its newest
    version that is not archived. A memory with no such version (created archived, or
    archived before its history was kept) comes back active. One query for all of them.
    """
    before = (
        Memory.history.filter(id=OuterRef("pk"))
        .exclude(status=Memory.Status.ARCHIVED)
        .order_by("-history_date", "-history_id")
        .values("status")[:1]
    )
    rows = (
        Memory.objects.filter(pk__in=memory_ids)
        .annotate(before=Subquery(before))
        .values_list("pk", "before")
    )
    return {pk: status or Memory.Status.ACTIVE for pk, status in rows}


@transaction.atomic
def memory_archive(
    *,
    memory: Memory,
    actor,
    reason: str = "",
    at_ms: int | None = None,
    expected_revision: int | None = None,
) -> Memory:
    """Archive a memory, keeping the reason in its metadata as upstream's archive action does.

    Given `expected_revision` (the store row's revision a page read), a row the agent revised
    since is refused in the store's transaction (StoreRowChanged), nothing written.
    """
    current = Memory.objects.select_for_update().get(pk=memory.pk)
    if current.status == Memory.Status.ARCHIVED:
        raise ValidationError(f"Memory #{current.display_id} is already archived.")
    changes = mark_archived(current, reason=reason, now=at_ms if at_ms is not None else now_ms())
    with acting(actor=actor, reason=reason):
        receipt = store_backend().write_memories(
            project=current.project,
            changes=[StoreChange(current, reason=reason, expected_revision=expected_revision)],
        )
        current.save()
        receipt.settle()
        audit_record(
            action="archived",
            target=current,
            project=current.project,
            category=current.category,
            changes=changes,
        )
    return current


@transaction.atomic
def memory_supersede(
    *, memory: Memory, successor: Memory, actor, reason: str = "", at_ms: int | None = None
) -> Memory:
    """Archive `memory` as superseded by `successor` (a live memory of the same project)."""
    current = Memory.objects.select_for_update().get(pk=memory.pk)
    if successor.pk == current.pk:
        raise ValidationError("A memory cannot supersede itself.")
    if successor.project_id != current.project_id:
        raise ValidationError("A memory can only be superseded by one of the same project.")
    if successor.status == Memory.Status.ARCHIVED:
        raise ValidationError(f"#{successor.display_id} is archived and cannot supersede anything.")
    old_status = current.status
    current.status = Memory.Status.ARCHIVED
    current.superseded_by = successor
    current.updated_at = max(at_ms if at_ms is not None else now_ms(), current.updated_at + 1)
    with acting(actor=actor, reason=reason):
        receipt = store_backend().write_memories(
            project=current.project, changes=[StoreChange(current, "supersede", reason)]
        )
        current.save()
        receipt.settle()
        audit_record(
            action="superseded",
            target=current,
            project=current.project,
            category=current.category,
            changes={"status": [old_status, "archived"], "superseded_by": successor.pk},
        )
    return current


def memory_unsupersede(*, memory: Memory, status: str, actor, reason: str = "") -> Memory:
    """Make a memory archived as superseded live again, as `status`, superseded by nothing.

    For an undo that also takes its successor away (a fragmenting: the header it made);
    refused for a memory that is not superseded, or to a status that is not live.
    """
    current = Memory.objects.select_for_update().get(pk=memory.pk)
    if current.superseded_by_id is None or current.status != Memory.Status.ARCHIVED:
        raise ValidationError(f"#{current.display_id} is not archived as superseded.")
    if status not in (Memory.Status.ACTIVE, Memory.Status.PERMANENT):
        raise ValidationError(f"A superseded memory comes back active or permanent, not {status}.")
    successor = current.superseded_by_id
    changes = mark_restored(current, status=status, now=now_ms())
    current.superseded_by = None
    metadata = dict(current.metadata or {})
    if metadata.pop("fragmented_into", None) is not None:
        current.metadata = metadata
    with acting(actor=actor, reason=reason):
        receipt = store_backend().write_memories(
            project=current.project, changes=[StoreChange(current)]
        )
        current.save()
        receipt.settle()
        audit_record(
            action="restored",
            target=current,
            project=current.project,
            category=current.category,
            changes={**changes, "superseded_by": [successor, None]},
        )
    return current
