"""Add, remove and move a composite's members, keeping its order and its cursor.

After every change the members' positions are 0..n-1 in order, and the cursor names a member
of the sequence (0 when it is empty). The cursor follows the member it points at: moving
members around keeps it on the same memory; removing that memory moves it to the member that
took its place, wrapping to the first when the removed member was the last.

Given `expected_fingerprint` (the version a page showed, see `versions`), each refuses a
composite changed since with CompositeChanged, writing nothing.

Each change stamps `members_changed_at` (and an added member's `joined_at`) at `at_ms`; the
stamps as a whole are described in `services`, which other apps import these from.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting
from memadmin.memories.models import Memory

from .models import Composite, CompositeMember
from .positions import cursor_member_id, member_ids, member_rows, settle
from .rules import fresh_memories, locked_for_edit, members_changed, record, refuse_bad_members


def _index_of(rows: Sequence[CompositeMember], member: Memory) -> int:
    """Return the index of `member`'s row; refuse a memory that is not a member."""
    for index, row in enumerate(rows):
        if row.member_id == member.pk:
            return index
    raise ValidationError({"member": f"#{member.display_id} is not a member of this composite."})


@contextmanager
def _rearranging(
    composite: Composite,
    rows: list[CompositeMember],
    *,
    action: str,
    changes: dict,
    actor,
    reason: str,
    at_ms: int | None,
    fallback_index: int = 0,
) -> Iterator[None]:
    """Stamp a membership change and run the block's writes as `actor`; then settle and record.

    The block changes `rows` (the members in order). Afterwards the positions are renumbered,
    the cursor put back on its memory (or on `fallback_index`, see `positions.settle`), and
    one event records the members before and after, `changes`, and the stamp.
    """
    before = member_ids(rows)
    cursor_member = cursor_member_id(composite, rows)
    stamp = members_changed(composite, at_ms)
    with acting(actor=actor, reason=reason):
        yield
        settle(composite, rows, cursor_on=cursor_member, fallback_index=fallback_index)
        record(
            composite,
            action=action,
            changes={"members": [before, member_ids(rows)], **changes, "members_changed_at": stamp},
        )


@transaction.atomic
def composite_member_add(
    *,
    composite: Composite,
    members: Sequence[Memory],
    actor,
    position: int | None = None,
    reason: str = "",
    at_ms: int | None = None,
    expected_fingerprint: str | None = None,
) -> Composite:
    """Insert `members` at `position` (default: the end), in the given order."""
    if not members:
        raise ValidationError({"member": "Choose at least one memory to add."})
    composite = locked_for_edit(composite, expected_fingerprint)
    members = fresh_memories(members)
    refuse_bad_members(composite, composite.head, members)
    rows = member_rows(composite)
    at = len(rows) if position is None else position
    if not 0 <= at <= len(rows):
        raise ValidationError(
            {"position": f"A new member goes at a position from 1 to {len(rows) + 1}."}
        )
    with _rearranging(
        composite,
        rows,
        action="composite_member_added",
        changes={"added": [memory.pk for memory in members]},
        actor=actor,
        reason=reason,
        at_ms=at_ms,
    ):
        # New rows are created past the end, then everything is renumbered in order.
        rows[at:at] = [
            CompositeMember.objects.create(
                composite=composite,
                member=memory,
                position=len(rows) + index,
                joined_at=composite.members_changed_at,
            )
            for index, memory in enumerate(members)
        ]
    return composite


@transaction.atomic
def composite_member_remove(
    *,
    composite: Composite,
    member: Memory,
    actor,
    reason: str = "",
    at_ms: int | None = None,
    expected_fingerprint: str | None = None,
) -> Composite:
    """Remove one member; the positions close up and the cursor stays on a member."""
    composite = locked_for_edit(composite, expected_fingerprint)
    rows = member_rows(composite)
    index = _index_of(rows, member)
    with _rearranging(
        composite,
        rows,
        action="composite_member_removed",
        changes={"removed": member.pk},
        actor=actor,
        reason=reason,
        at_ms=at_ms,
        fallback_index=composite.cursor,
    ):
        rows.pop(index).delete()
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
    expected_fingerprint: str | None = None,
) -> Composite:
    """Move one member to `position` (0-based); the others shift to keep the order contiguous."""
    composite = locked_for_edit(composite, expected_fingerprint)
    rows = member_rows(composite)
    index = _index_of(rows, member)
    if not 0 <= position < len(rows):
        raise ValidationError({"position": f"A member's position is between 1 and {len(rows)}."})
    if position == index:
        return composite
    with _rearranging(
        composite,
        rows,
        action="composite_member_moved",
        changes={"moved": member.pk},
        actor=actor,
        reason=reason,
        at_ms=at_ms,
    ):
        rows.insert(position, rows.pop(index))
    return composite
