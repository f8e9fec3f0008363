"""The steps every composite service shares: what it refuses, its stamp, the event it records.

Only the services in this app call these (`services`, `member_services`, `reference_services`),
inside their transaction; a refusal raises ValidationError before anything is written.
"""

from collections.abc import Sequence

from django.core.exceptions import ValidationError

from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.memories.models import Memory
from memadmin.projects.store import store_backend

from .models import Composite
from .positions import locked
from .versions import refuse_changed


def refuse_archived_head(head: Memory) -> None:
    """Refuse any change to a composite whose head is archived."""
    if head.status == Memory.Status.ARCHIVED:
        raise ValidationError(
            {
                "head": (
                    f"#{head.display_id} is archived: a composite cannot be headed by an "
                    "archived memory. Restore it first."
                )
            },
            code="archived_head",
        )


def locked_for_edit(composite: Composite, expected_fingerprint: str | None = None) -> Composite:
    """Return the composite re-read under a row lock; refuse it if its head is archived.

    Given `expected_fingerprint`, refuse it with CompositeChanged if it changed since that
    version, or if the version is empty (see `versions.refuse_changed`).
    """
    composite = locked(composite)
    refuse_changed(composite, expected_fingerprint)
    refuse_archived_head(composite.head)
    return composite


def refuse_bad_members(composite: Composite, head: Memory, memories: Sequence[Memory]) -> None:
    """Refuse members that are the head, repeated, from elsewhere, archived or already in."""
    present = set(composite.members.values_list("member_id", flat=True)) if composite.pk else set()
    seen: set[int] = set()
    for memory in memories:
        label = f"#{memory.display_id}"
        if memory.pk == head.pk:
            message = f"{label} heads this composite; the head is never its own member."
        elif memory.pk in present or memory.pk in seen:
            message = f"{label} is already a member of this composite."
        elif memory.project_id != head.project_id:
            message = f"{label} belongs to another project."
        elif memory.status == Memory.Status.ARCHIVED:
            message = f"{label} is archived; restore it before adding it."
        else:
            seen.add(memory.pk)
            continue
        raise ValidationError({"member": message}, code="bad_member")


def fresh_memories(memories: Sequence[Memory]) -> list[Memory]:
    """Return the memories re-read from the database, in the given order."""
    by_pk = Memory.objects.in_bulk([memory.pk for memory in memories])
    missing = [memory.pk for memory in memories if memory.pk not in by_pk]
    if missing:
        raise ValidationError({"member": f"No memory with id {missing[0]}."})
    return [by_pk[memory.pk] for memory in memories]


def members_changed(composite: Composite, at_ms: int | None) -> list[int | None]:
    """Stamp the members as changed at `at_ms` (default now, never before the last stamp).

    Return the stamp as [before, after], for the audit event. The caller saves the composite.
    """
    before = composite.members_changed_at
    now = at_ms if at_ms is not None else now_ms()
    composite.members_changed_at = max(now, before or 0)
    return [before, composite.members_changed_at]


def record(composite: Composite, *, action: str, changes: dict) -> None:
    """Record one audit event on the composite, under its project and its head's category.

    Call it inside the service's `acting` block, so the event names the actor and reason.
    Then write the composite through to its store (`store_backend().write_composite`).
    """
    audit_record(
        action=action,
        target=composite,
        project=composite.project,
        category=composite.head.category,
        changes=changes,
    )
    store_backend().write_composite(composite=composite, action=action)
