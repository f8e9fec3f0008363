"""Write composites: create one, change its type or title, move its cursor, delete it.

Every service locks the composite row, validates, writes, and records one audit event in the
same transaction; a refused change writes nothing, and so does a change to what is already
there. Members are added, removed and moved in `member_services`; this module re-exports those
services and `refuse_archived_head` (see `__all__`), so other apps import every composite
write from here. Each change takes `expected_fingerprint`, the version its page showed
(`versions`): a composite changed since, or an empty version, is refused with nothing written.

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
from memadmin.core.clock import now_ms
from memadmin.memories.models import Memory

from .member_services import composite_member_add, composite_member_move, composite_member_remove
from .models import Composite, CompositeMember
from .positions import locked, member_ids, member_rows
from .rules import (
    fresh_memories,
    locked_for_edit,
    members_changed,
    record,
    refuse_archived_head,
    refuse_bad_members,
)
from .versions import CompositeChanged, composite_fingerprint, fingerprint_of

__all__ = [
    "TITLE_MAX_CHARS",
    "CompositeChanged",
    "composite_create",
    "composite_cursor_advance",
    "composite_cursor_back",
    "composite_cursor_set",
    "composite_delete",
    "composite_fingerprint",
    "composite_member_add",
    "composite_member_move",
    "composite_member_remove",
    "composite_set_title",
    "composite_set_type",
    "refuse_archived_head",
]

TITLE_MAX_CHARS = 200


def _refuse_unknown_type(type: str) -> None:
    if type not in Composite.Type.values:
        raise ValidationError(
            {"type": f"A composite's type is one of: {', '.join(Composite.Type.values)}."}
        )


def _refuse_long_title(title: str) -> None:
    if len(title) > TITLE_MAX_CHARS:
        raise ValidationError({"title": f"A title holds at most {TITLE_MAX_CHARS} characters."})


def _change(
    composite: Composite,
    *,
    field: str,
    value,
    action: str,
    actor,
    reason: str,
    also: dict | None = None,
) -> Composite:
    """Set one field of the locked composite, save it and record the field as [old, new].

    Nothing is written when the field already holds `value`. `also` sets other fields in the
    same save (a composite becoming a sequence starts at step 1); those it changes are recorded
    in the same event, [old, new] too.
    """
    old = getattr(composite, field)
    if old == value:
        return composite
    changes = {field: [old, value]}
    for name, other in (also or {}).items():
        if getattr(composite, name) != other:
            changes[name] = [getattr(composite, name), other]
    with acting(actor=actor, reason=reason):
        for name, (_, new) in changes.items():
            setattr(composite, name, new)
        composite.save()
        record(composite, action=action, changes=changes)
    return composite


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
    _refuse_unknown_type(type)
    _refuse_long_title(title)
    head = Memory.objects.select_for_update().get(pk=head.pk)
    refuse_archived_head(head)
    members = fresh_memories(members)
    made = at_ms if at_ms is not None else now_ms()
    composite = Composite(
        project_id=head.project_id, type=type, head=head, title=title.strip(), made_at=made
    )
    refuse_bad_members(composite, head, members)
    with acting(actor=actor, reason=reason):
        composite.save()
        for index, memory in enumerate(members):
            CompositeMember.objects.create(
                composite=composite, member=memory, position=index, joined_at=made
            )
        record(
            composite,
            action="composite_created",
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
def composite_set_type(
    *,
    composite: Composite,
    type: str,
    actor,
    reason: str = "",
    expected_fingerprint: str | None = None,
) -> Composite:
    """Change a composite's type; a composite that becomes a sequence starts at its first member.

    Given `expected_fingerprint`, refuse a composite changed since (see `versions`). Only a
    new type is checked: the type it has is kept, whatever it is.
    """
    composite = locked_for_edit(composite, expected_fingerprint)
    if type != composite.type:
        _refuse_unknown_type(type)
    return _change(
        composite,
        field="type",
        value=type,
        also={"cursor": 0} if type == Composite.Type.SEQUENCE else None,
        action="composite_type_changed",
        actor=actor,
        reason=reason,
    )


@transaction.atomic
def composite_set_title(
    *,
    composite: Composite,
    title: str,
    actor,
    reason: str = "",
    expected_fingerprint: str | None = None,
) -> Composite:
    """Rename a composite (the title is optional; the diagram shows the head either way).

    Given `expected_fingerprint`, refuse a composite changed since (see `versions`).
    """
    title = title.strip()
    _refuse_long_title(title)
    return _change(
        locked_for_edit(composite, expected_fingerprint),
        field="title",
        value=title,
        action="composite_renamed",
        actor=actor,
        reason=reason,
    )


def _locked_sequence(composite: Composite, expected: str | None) -> tuple[Composite, int]:
    """Return the composite locked, and its size; refuse it unless it is a sequence with members.

    Given `expected` (a fingerprint), refuse a composite changed since (see `versions`).
    """
    composite = locked_for_edit(composite, expected)
    if composite.type != Composite.Type.SEQUENCE:
        raise ValidationError(
            {"cursor": f"Only a sequence has a cursor; this composite is a {composite.type}."}
        )
    size = composite.members.count()
    if size == 0:
        raise ValidationError({"cursor": "This sequence has no member for the cursor to mark."})
    return composite, size


def _cursor_to(composite: Composite, position: int, *, actor, reason: str) -> Composite:
    return _change(
        composite,
        field="cursor",
        value=position,
        action="composite_cursor_moved",
        actor=actor,
        reason=reason,
    )


@transaction.atomic
def composite_cursor_set(
    *,
    composite: Composite,
    position: int,
    actor,
    reason: str = "",
    expected_fingerprint: str | None = None,
) -> Composite:
    """Put a sequence's cursor on the member at `position` (0-based)."""
    composite, size = _locked_sequence(composite, expected_fingerprint)
    if not isinstance(position, int) or not 0 <= position < size:
        raise ValidationError(
            {"cursor": f"The cursor goes on a step from 1 to {size}; {position + 1} is outside."}
        )
    return _cursor_to(composite, position, actor=actor, reason=reason)


@transaction.atomic
def composite_cursor_advance(
    *, composite: Composite, actor, reason: str = "", expected_fingerprint: str | None = None
) -> Composite:
    """Move a sequence's cursor to the next member, from the last back to the first."""
    composite, size = _locked_sequence(composite, expected_fingerprint)
    return _cursor_to(composite, (composite.cursor + 1) % size, actor=actor, reason=reason)


@transaction.atomic
def composite_cursor_back(
    *, composite: Composite, actor, reason: str = "", expected_fingerprint: str | None = None
) -> Composite:
    """Move a sequence's cursor to the previous member, from the first round to the last."""
    composite, size = _locked_sequence(composite, expected_fingerprint)
    return _cursor_to(composite, (composite.cursor - 1) % size, actor=actor, reason=reason)


@transaction.atomic
def composite_delete(
    *,
    composite: Composite,
    actor,
    reason: str = "",
    at_ms: int | None = None,
    expected_fingerprint: str = "",
) -> None:
    """Delete a composite and its member rows; the memories themselves stay.

    Given `expected_fingerprint` (composite_fingerprint of what the person confirmed), refuse
    with CompositeChanged, deleting nothing, if the composite changed since. A composite under
    an archived head may be deleted. The history row recording the deletion keeps its stamp
    (see the module docstring).
    """
    composite = locked(composite)
    rows = member_rows(composite)
    if expected_fingerprint and expected_fingerprint != fingerprint_of(composite, member_ids(rows)):
        raise CompositeChanged()
    stamp = members_changed(composite, at_ms)
    with acting(actor=actor, reason=reason):
        record(
            composite,
            action="composite_deleted",
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
