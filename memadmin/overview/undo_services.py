"""Undo one change, through the audit trail and the existing revert services.

A change is everything written under one change id (`audit.context.acting`): a bulk action,
an archive, an edit, a criteria clear, a composite's deletion. Undoing it writes new
versions, never rewrites old ones: each memory the change touched goes back to its version
from just before (`memory_revert`), each memory it made is archived, each category's
criteria go back likewise (`criteria_revert`), a deleted composite is made again from what
its deletion recorded (`composite_create`), a composite it made is deleted again, and
memories added to a composite are taken out again (`composite_member_remove`). So applying
the structure assistant's suggestions, or fragmenting a memory, is undone whole.

Refused whole, nothing written: an unknown change, one undone already, or one that something
later has written over (a newer version of one of its memories or categories): undoing it
would overwrite that newer write (for an add to a composite: its members changed since).
"""

from dataclasses import dataclass
from uuid import UUID

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from memadmin.accounts.roles import has_role
from memadmin.audit.context import acting
from memadmin.audit.models import AuditEvent
from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite
from memadmin.composites.services import (
    composite_create,
    composite_cursor_set,
    composite_delete,
    composite_member_remove,
)
from memadmin.history.revert_services import criteria_revert, memory_revert
from memadmin.memories.archive_services import memory_archive, memory_unsupersede
from memadmin.memories.models import Memory
from memadmin.taxonomy.models import Category

UNDONE = "change_undone"


@dataclass(frozen=True)
class Undone:
    """What an undo put back."""

    memories: int = 0
    archived: int = 0
    unmade: int = 0
    categories: int = 0
    composite: Composite | None = None
    taken_out: int = 0
    taken_out_of: Composite | None = None

    def summary(self) -> str:
        """Return a sentence for the person who asked."""
        parts = []
        if self.memories:
            parts.append(f"{self.memories} memor{'y' if self.memories == 1 else 'ies'} restored")
        if self.archived:
            parts.append(
                f"{self.archived} memor{'y' if self.archived == 1 else 'ies'} it made archived"
            )
        if self.unmade:
            parts.append(
                f"{self.unmade} composite{'' if self.unmade == 1 else 's'} it made deleted"
            )
        if self.categories:
            parts.append(
                f"criteria of {self.categories} categor{'y' if self.categories == 1 else 'ies'} put back"
            )
        if self.composite is not None:
            parts.append(f"composite “{self.composite.title or self.composite.type}” made again")
        if self.taken_out_of is not None:
            count = self.taken_out
            parts.append(
                f"{count} member{'' if count == 1 else 's'} taken out of "
                f"“{self.taken_out_of.title or self.taken_out_of.type}”"
            )
        return "Undone: " + ", ".join(parts) + "."


def _before(history, object_ids: set[int], change_id: UUID) -> dict[int, object]:
    """Return each object's version from just before the change; refuse if a later one exists."""
    rows = list(history.filter(id__in=object_ids).order_by("id", "history_id"))
    previous = {}
    for object_id in object_ids:
        versions = [row for row in rows if row.id == object_id]
        first = next(i for i, row in enumerate(versions) if row.history_change_id == change_id)
        if versions[-1].history_change_id != change_id:
            raise ValidationError(
                f"#{object_id} was changed again after this change; undo it from its history "
                "instead, so the newer change is not lost."
            )
        if first == 0:
            raise ValidationError(f"#{object_id} did not exist before this change.")
        previous[object_id] = versions[first - 1]
    return previous


def _undone_parts(change_id: UUID) -> set[int | None]:
    """Return which parts of a change were undone: memory ids, or None for the whole."""
    undos = AuditEvent.objects.filter(action=UNDONE, changes__undoes=str(change_id))
    return {event.changes.get("memory") for event in undos.only("changes")}


def change_memories(change_id: UUID) -> list[tuple[Memory, object]]:
    """Return each memory one change wrote, with its version from just before the change
    (None for one the change made), in id order: what a person may undo one by one."""
    ids = set(Memory.history.filter(history_change_id=change_id).values_list("id", flat=True))
    versions: dict[int, list] = {}
    for row in Memory.history.filter(id__in=ids).order_by("id", "history_id"):
        versions.setdefault(row.id, []).append(row)
    memories = []
    for memory in Memory.objects.filter(pk__in=ids).select_related("project").order_by("pk"):
        own = versions[memory.pk]
        first = next(i for i, row in enumerate(own) if row.history_change_id == change_id)
        memories.append((memory, own[first - 1] if first else None))
    return memories


@transaction.atomic
def memory_change_undo(*, change_id: UUID, memory_id: int, actor) -> Undone:
    """Undo one memory's part of a change (after a bulk action, one row of it).

    Refused, nothing written: a change that did not write this memory, a part undone
    already, or a memory written again since (as for a whole change). The rest of the change
    stays; undoing it whole afterwards is refused, since this memory changed since.
    """
    events = AuditEvent.objects.filter(change_id=change_id)
    if not events.exists():
        raise ValidationError("There is no such change to undo.")
    if not Memory.history.filter(history_change_id=change_id, id=memory_id).exists():
        raise ValidationError(f"This change did not write memory {memory_id}.")
    undone = _undone_parts(change_id)
    if None in undone or memory_id in undone:
        raise ValidationError("This part of the change was undone already.")
    version = _before(Memory.history, {memory_id}, change_id)[memory_id]
    reason = f"Undo of change {change_id} for one memory"
    memory = Memory.objects.get(pk=memory_id)
    with acting(actor=actor, reason=reason, new_change=True):
        memory_revert(memory=memory, version=version, actor=actor, reason=reason)
        audit_record(
            action=UNDONE,
            target=memory,
            project=memory.project,
            category=memory.category,
            changes={"undoes": str(change_id), "memory": memory_id},
        )
    return Undone(memories=1)


@transaction.atomic
def change_undo(*, change_id: UUID, actor) -> Undone:
    """Undo every write of one change; refuse whole, writing nothing, as the module says."""
    events = list(AuditEvent.objects.filter(change_id=change_id).order_by("pk"))
    if not events:
        raise ValidationError("There is no such change to undo.")
    undone = _undone_parts(change_id)
    if None in undone:
        raise ValidationError("This change was undone already.")
    if undone:
        shown = ", ".join(f"#{pk}" for pk in sorted(undone))
        raise ValidationError(
            f"Part of this change was undone already ({shown}); undo the rest one by one."
        )
    reason = f"Undo of change {change_id}"
    memory_ids = set(
        Memory.history.filter(history_change_id=change_id).values_list("id", flat=True)
    )
    category_ids = set(
        Category.history.filter(history_change_id=change_id).values_list("id", flat=True)
    )
    deleted = [event for event in events if event.action == "composite_deleted"]
    added = [event for event in events if event.action == "composite_member_added"]
    created = [event for event in events if event.action == "composite_created"]
    if any(event.changes.get("composites_repointed") for event in events):
        raise ValidationError(
            "This change pointed composites at a new header; undo it from those composites' "
            "pages, so their members are not lost."
        )
    if not (memory_ids or category_ids or deleted or added or created):
        raise ValidationError("This change cannot be undone here; see its history.")
    if category_ids and not has_role(actor, "curator"):
        raise PermissionDenied("Undoing a criteria change needs the curator role.")
    made = _made(memory_ids, change_id)
    memory_versions = _before(Memory.history, memory_ids - made, change_id)
    category_versions = _before(Category.history, category_ids, change_id)
    with acting(actor=actor, reason=reason, new_change=True):
        for event in created:  # before their heads are archived
            _unmake(event, actor=actor, reason=reason)
        for memory in Memory.objects.filter(pk__in=made).order_by("pk"):
            if memory.status != Memory.Status.ARCHIVED:
                memory_archive(memory=memory, actor=actor, reason=reason)
        for memory in Memory.objects.filter(pk__in=memory_ids - made).order_by("pk"):
            version = memory_versions[memory.pk]
            if memory.superseded_by_id in made and version.superseded_by_id is None:
                # Fragmented by this change: its header goes, so it comes back whole.
                memory_unsupersede(memory=memory, status=version.status, actor=actor, reason=reason)
                continue
            memory_revert(memory=memory, version=version, actor=actor, reason=reason)
        for version in category_versions.values():
            criteria_revert(version=version, actor=actor, reason=reason)
        composite = _remake(deleted[0], actor=actor, reason=reason) if deleted else None
        taken_out = [_take_out(event, actor=actor, reason=reason) for event in added]
        audit_record(
            action=UNDONE,
            target=events[0],
            project=events[0].project,
            object_type="change",
            changes={"undoes": str(change_id), "action": events[0].action},
        )
    return Undone(
        memories=len(memory_ids - made),
        archived=len(made),
        unmade=len(created),
        categories=len(category_ids),
        composite=composite,
        taken_out=sum(count for _, count in taken_out),
        taken_out_of=taken_out[0][0] if taken_out else None,
    )


def _made(memory_ids: set[int], change_id: UUID) -> set[int]:
    """Return the memories this change created; refuse if one was written again since."""
    rows = Memory.history.filter(id__in=memory_ids).order_by("id", "history_id")
    versions: dict[int, list] = {}
    for row in rows.only("id", "history_change_id"):
        versions.setdefault(row.id, []).append(row.history_change_id)
    made = {pk for pk, changes in versions.items() if changes[0] == change_id}
    for pk in made:
        if versions[pk][-1] != change_id:
            raise ValidationError(
                f"#{pk}, made by this change, was changed again since; undo it from its "
                "history instead, so the newer change is not lost."
            )
    return made


def _unmake(event: AuditEvent, *, actor, reason: str) -> None:
    """Delete a composite the change created; refuse if its members changed since."""
    composite = Composite.objects.filter(pk=event.object_id).first()
    if composite is None:
        return  # deleted since: nothing left to take back
    now = list(composite.members.order_by("position").values_list("member_id", flat=True))
    if now != event.changes.get("members", []):
        raise ValidationError(
            f"The members of “{composite.title or composite.type}” changed after this change; "
            "delete it on the composite's page instead, so the newer change is not lost."
        )
    composite_delete(composite=composite, actor=actor, reason=reason)


def _take_out(event: AuditEvent, *, actor, reason: str) -> tuple[Composite, int]:
    """Take the memories an add put in a composite out again; refuse if its members moved on."""
    composite = Composite.objects.filter(pk=event.object_id).first()
    if composite is None:
        raise ValidationError("The composite these memories were added to no longer exists.")
    before, after = event.changes["members"]
    now = list(composite.members.order_by("position").values_list("member_id", flat=True))
    if now != after:
        raise ValidationError(
            f"The members of “{composite.title or composite.type}” changed after this change; "
            "take them out on the composite's page instead, so the newer change is not lost."
        )
    added = [pk for pk in after if pk not in set(before)]
    for member in Memory.objects.filter(pk__in=added).order_by("pk"):
        composite = composite_member_remove(
            composite=composite, member=member, actor=actor, reason=reason
        )
    return composite, len(added)


def _remake(event: AuditEvent, *, actor, reason: str) -> Composite:
    """Make a deleted composite again from what its deletion event recorded."""
    recorded = event.changes
    memories = Memory.objects.in_bulk([recorded["head"], *recorded["members"]])
    missing = [pk for pk in [recorded["head"], *recorded["members"]] if pk not in memories]
    if missing:
        raise ValidationError(
            "The composite cannot be made again: "
            + ", ".join(f"memory {pk}" for pk in missing)
            + " no longer exists."
        )
    composite = composite_create(
        head=memories[recorded["head"]],
        type=recorded["type"],
        title=recorded.get("title", ""),
        members=[memories[pk] for pk in recorded["members"]],
        actor=actor,
        reason=reason,
    )
    if recorded.get("cursor"):
        composite = composite_cursor_set(
            composite=composite, position=recorded["cursor"], actor=actor
        )
    return composite
