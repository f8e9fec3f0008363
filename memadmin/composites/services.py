"""Write composites: create, change type, add, remove and reorder members, move the cursor.

Every service locks the composite row, validates, writes, and records one audit event in the
same transaction; a refused change writes nothing. After every change the members' positions
are 0..n-1 in order, and the cursor names a member of the sequence (0 when it is empty).

The cursor follows the member it points at: moving members around keeps it on the same
memory; removing that memory moves it to the member that took its place, wrapping to the
first when the removed member was the last.

Membership is stamped at `at_ms` (milliseconds, default now) for the stale-header queue: a
new composite's `made_at` and its members' `joined_at`, an added member's `joined_at`, and
`members_changed_at` on every add, remove, move and deletion (the history row recording a
deletion keeps it). The audit events carry the stamp ("made_at", or "members_changed_at" as
[before, after]), so the queue reads when each change happened on the same clock.
"""

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.memories.models import Memory

from .models import Composite, CompositeMember
from .positions import cursor_member_id, locked, member_ids, member_rows, settle

TITLE_MAX_CHARS = 200


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


def _refuse_bad_members(composite: Composite, head: Memory, memories: Sequence[Memory]) -> None:
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


def _members_changed(composite: Composite, at_ms: int | None) -> list[int | None]:
    """Stamp the members as changed at `at_ms` (default now, never before the last stamp).

    Return the stamp as [before, after], for the audit event.
    """
    before = composite.members_changed_at
    now = at_ms if at_ms is not None else now_ms()
    composite.members_changed_at = max(now, before or 0)
    return [before, composite.members_changed_at]


def _fresh(memories: Sequence[Memory]) -> list[Memory]:
    """Return the memories re-read from the database, in the given order."""
    by_pk = Memory.objects.in_bulk([memory.pk for memory in memories])
    missing = [memory.pk for memory in memories if memory.pk not in by_pk]
    if missing:
        raise ValidationError({"member": f"No memory with id {missing[0]}."})
    return [by_pk[memory.pk] for memory in memories]


@transaction.atomic
def composite_create(
    *,
    head: Memory,
    type: str,
    actor,
    members: Sequence[Memory] = (),
    title: str = "",
    reason: str = "",
    at_ms: int | None = None,
) -> Composite:
    """Create a composite of `type` headed by `head`, with `members` in the given order."""
    if type not in Composite.Type.values:
        raise ValidationError(
            {"type": f"A composite's type is one of: {', '.join(Composite.Type.values)}."}
        )
    if len(title) > TITLE_MAX_CHARS:
        raise ValidationError({"title": f"A title holds at most {TITLE_MAX_CHARS} characters."})
    head = Memory.objects.select_for_update().get(pk=head.pk)
    refuse_archived_head(head)
    members = _fresh(members)
    made = at_ms if at_ms is not None else now_ms()
    composite = Composite(
        project_id=head.project_id, type=type, head=head, title=title.strip(), made_at=made
    )
    _refuse_bad_members(composite, head, members)
    with acting(actor=actor, reason=reason):
        composite.save()
        for index, memory in enumerate(members):
            CompositeMember.objects.create(
                composite=composite, member=memory, position=index, joined_at=made
            )
        audit_record(
            action="composite_created",
            target=composite,
            project=composite.project,
            category=head.category,
            changes={
                "type": type,
                "head": head.pk,
                "members": [memory.pk for memory in members],
                "title": composite.title,
                "made_at": made,
            },
        )
    return composite


@transaction.atomic
def composite_set_type(*, composite: Composite, type: str, actor, reason: str = "") -> Composite:
    """Change a composite's type; a composite that becomes a sequence starts at its first member."""
    if type not in Composite.Type.values:
        raise ValidationError(
            {"type": f"A composite's type is one of: {', '.join(Composite.Type.values)}."}
        )
    composite = locked(composite)
    refuse_archived_head(composite.head)
    old = composite.type
    if old == type:
        return composite
    with acting(actor=actor, reason=reason):
        composite.type = type
        if type == Composite.Type.SEQUENCE:
            composite.cursor = 0
        composite.save()
        audit_record(
            action="composite_type_changed",
            target=composite,
            project=composite.project,
            category=composite.head.category,
            changes={"type": [old, type]},
        )
    return composite


@transaction.atomic
def composite_set_title(*, composite: Composite, title: str, actor, reason: str = "") -> Composite:
    """Rename a composite (the title is optional; the diagram shows the head either way)."""
    title = title.strip()
    if len(title) > TITLE_MAX_CHARS:
        raise ValidationError({"title": f"A title holds at most {TITLE_MAX_CHARS} characters."})
    composite = locked(composite)
    refuse_archived_head(composite.head)
    old = composite.title
    if old == title:
        return composite
    with acting(actor=actor, reason=reason):
        composite.title = title
        composite.save()
        audit_record(
            action="composite_renamed",
            target=composite,
            project=composite.project,
            category=composite.head.category,
            changes={"title": [old, title]},
        )
    return composite


@transaction.atomic
def composite_member_add(
    *,
    composite: Composite,
    members: Sequence[Memory],
    actor,
    position: int | None = None,
    reason: str = "",
    at_ms: int | None = None,
) -> Composite:
    """Insert `members` at `position` (default: the end), in the given order."""
    if not members:
        raise ValidationError({"member": "Choose at least one memory to add."})
    composite = locked(composite)
    refuse_archived_head(composite.head)
    members = _fresh(members)
    _refuse_bad_members(composite, composite.head, members)
    rows = member_rows(composite)
    at = len(rows) if position is None else position
    if not 0 <= at <= len(rows):
        raise ValidationError(
            {"position": f"A new member goes at a position from 1 to {len(rows) + 1}."}
        )
    before = member_ids(rows)
    cursor_member = cursor_member_id(composite, rows)
    stamp = _members_changed(composite, at_ms)
    with acting(actor=actor, reason=reason):
        # New rows are created past the end, then everything is renumbered in order.
        new_rows = [
            CompositeMember.objects.create(
                composite=composite,
                member=memory,
                position=len(rows) + index,
                joined_at=composite.members_changed_at,
            )
            for index, memory in enumerate(members)
        ]
        rows[at:at] = new_rows
        settle(composite, rows, cursor_on=cursor_member)
        audit_record(
            action="composite_member_added",
            target=composite,
            project=composite.project,
            category=composite.head.category,
            changes={
                "members": [before, member_ids(rows)],
                "added": [m.pk for m in members],
                "members_changed_at": stamp,
            },
        )
    return composite


@transaction.atomic
def composite_member_remove(
    *, composite: Composite, member: Memory, actor, reason: str = "", at_ms: int | None = None
) -> Composite:
    """Remove one member; the positions close up and the cursor stays on a member."""
    composite = locked(composite)
    refuse_archived_head(composite.head)
    rows = member_rows(composite)
    index = next((i for i, row in enumerate(rows) if row.member_id == member.pk), None)
    if index is None:
        raise ValidationError(
            {"member": f"#{member.display_id} is not a member of this composite."}
        )
    before = member_ids(rows)
    cursor_member = cursor_member_id(composite, rows)
    stamp = _members_changed(composite, at_ms)
    with acting(actor=actor, reason=reason):
        rows.pop(index).delete()
        settle(composite, rows, cursor_on=cursor_member, fallback_index=composite.cursor)
        audit_record(
            action="composite_member_removed",
            target=composite,
            project=composite.project,
            category=composite.head.category,
            changes={
                "members": [before, member_ids(rows)],
                "removed": member.pk,
                "members_changed_at": stamp,
            },
        )
    return composite


@transaction.atomic
def composite_member_move(
    *,
    composite: Composite,
    member: Memory,
    position: int,
    actor,
    reason: str = "",
    at_ms: int | None = None,
) -> Composite:
    """Move one member to `position` (0-based); the others shift to keep the order contiguous."""
    composite = locked(composite)
    refuse_archived_head(composite.head)
    rows = member_rows(composite)
    index = next((i for i, row in enumerate(rows) if row.member_id == member.pk), None)
    if index is None:
        raise ValidationError(
            {"member": f"#{member.display_id} is not a member of this composite."}
        )
    if not 0 <= position < len(rows):
        raise ValidationError({"position": f"A member's position is between 1 and {len(rows)}."})
    if position == index:
        return composite
    before = member_ids(rows)
    cursor_member = cursor_member_id(composite, rows)
    stamp = _members_changed(composite, at_ms)
    with acting(actor=actor, reason=reason):
        rows.insert(position, rows.pop(index))
        settle(composite, rows, cursor_on=cursor_member)
        audit_record(
            action="composite_member_moved",
            target=composite,
            project=composite.project,
            category=composite.head.category,
            changes={
                "members": [before, member_ids(rows)],
                "moved": member.pk,
                "members_changed_at": stamp,
            },
        )
    return composite


def _refuse_cursor_on(composite: Composite, size: int) -> None:
    refuse_archived_head(composite.head)
    if composite.type != Composite.Type.SEQUENCE:
        raise ValidationError(
            {"cursor": f"Only a sequence has a cursor; this composite is a {composite.type}."}
        )
    if size == 0:
        raise ValidationError({"cursor": "This sequence has no member for the cursor to mark."})


def _cursor_write(composite: Composite, new: int, *, actor, reason: str) -> Composite:
    old = composite.cursor
    if old == new:
        return composite
    with acting(actor=actor, reason=reason):
        composite.cursor = new
        composite.save()
        audit_record(
            action="composite_cursor_moved",
            target=composite,
            project=composite.project,
            category=composite.head.category,
            changes={"cursor": [old, new]},
        )
    return composite


@transaction.atomic
def composite_cursor_set(
    *, composite: Composite, position: int, actor, reason: str = ""
) -> Composite:
    """Put a sequence's cursor on the member at `position` (0-based)."""
    composite = locked(composite)
    size = composite.members.count()
    _refuse_cursor_on(composite, size)
    if not isinstance(position, int) or not 0 <= position < size:
        raise ValidationError(
            {"cursor": f"The cursor goes on a step from 1 to {size}; {position + 1} is outside."}
        )
    return _cursor_write(composite, position, actor=actor, reason=reason)


@transaction.atomic
def composite_cursor_advance(*, composite: Composite, actor, reason: str = "") -> Composite:
    """Move a sequence's cursor to the next member, from the last back to the first."""
    composite = locked(composite)
    size = composite.members.count()
    _refuse_cursor_on(composite, size)
    return _cursor_write(composite, (composite.cursor + 1) % size, actor=actor, reason=reason)


@transaction.atomic
def composite_cursor_back(*, composite: Composite, actor, reason: str = "") -> Composite:
    """Move a sequence's cursor to the previous member, from the first round to the last."""
    composite = locked(composite)
    size = composite.members.count()
    _refuse_cursor_on(composite, size)
    return _cursor_write(composite, (composite.cursor - 1) % size, actor=actor, reason=reason)


@transaction.atomic
def composite_delete(
    *, composite: Composite, actor, reason: str = "", at_ms: int | None = None
) -> None:
    """Delete a composite and its member rows; the memories themselves stay.

    The history row recording the deletion keeps its stamp (see the module docstring).
    """
    composite = locked(composite)
    rows = member_rows(composite)
    stamp = _members_changed(composite, at_ms)
    with acting(actor=actor, reason=reason):
        audit_record(
            action="composite_deleted",
            target=composite,
            project=composite.project,
            category=composite.head.category,
            changes={
                "type": composite.type,
                "head": composite.head_id,
                "members": member_ids(rows),
                "cursor": composite.cursor,
                "title": composite.title,
                "members_changed_at": stamp,
            },
        )
        for row in rows:
            row.delete()
        # Not saved: the deletion's history row is written from these values.
        composite.delete()
