"""Curate many memories at once: archive, restore, move to another category, add to a composite.

Each action is planned first (`bulk_plan`): which of the selected memories it would change,
which are already as asked, and which it cannot change and why. The person confirms the plan's
count and fingerprint (the rows that change as reviewed: id, status, last update, status a
restore brings back); `bulk_apply` plans again under row locks and refuses with StalePlan,
writing nothing, if either moved meanwhile. Only the memories it can change are written; one
audit event per memory. The memory list offers the actions (`memadmin/memories/bulk_offers.py`);
they are curation's, above composites, since "add" writes a composite's members.
A restore brings back the status each memory had before it was archived (active or permanent)
and drops the archive reason from its metadata (the history keeps it).
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from simple_history.utils import bulk_update_with_history

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.member_services import composite_member_add
from memadmin.composites.models import Composite
from memadmin.composites.rules import refuse_archived_head
from memadmin.core.clock import now_ms
from memadmin.memories.archive_services import (
    mark_archived,
    mark_restored,
    statuses_before_archive,
)
from memadmin.memories.bulk_offers import ACTIONS, superseded_reasons
from memadmin.memories.models import Memory
from memadmin.memories.revision_fields import revision_for
from memadmin.projects.store import StoreChange, store_backend
from memadmin.taxonomy.models import Category

# What each action records and writes on a memory ("add" writes composite memberships instead).
AUDIT_ACTIONS = {"archive": "archived", "restore": "restored", "move": "recategorised"}
WRITTEN_FIELDS = {
    "archive": ["status", "metadata", "updated_at"],
    "restore": ["status", "metadata", "updated_at"],
    "move": ["category", "updated_at"],
}


@dataclass
class BulkPlan:
    """What an action would do to a selection."""

    action: str
    change: list[Memory] = field(default_factory=list)
    unchanged: list[Memory] = field(default_factory=list)
    refused: list[tuple[Memory, str]] = field(default_factory=list)
    restore_to: dict[int, str] = field(default_factory=dict)  # restore: the status brought back

    def change_rows(self) -> list[tuple[Memory, str]]:
        """Return each memory that changes, with the status a restore brings back ("" if none)."""
        return [(memory, self.restore_to.get(memory.pk, "")) for memory in self.change]

    def restore_counts(self) -> list[tuple[str, int]]:
        """Return how many memories a restore brings back to each status, active first."""
        statuses = list(self.restore_to.values())
        return [
            (status, statuses.count(status))
            for status in Memory.Status.values
            if status in statuses
        ]

    def summary(self, target: str = "") -> tuple[str, str]:
        """Return the review's sentence as (what changes, the rest), the first said in bold.

        E.g. ("3 rows will change", " (moved to OPS_RULES); 1 already as asked."): `target`
        names where a move or an add takes them.
        """
        count = len(self.change)
        head = f"{count} row{'' if count == 1 else 's'} will change"
        if self.action in ("move", "add") and target:
            rest = f" ({'moved' if self.action == 'move' else 'added'} to {target})"
        elif self.restore_to:
            rest = f" ({', '.join(f'{n} back to {status}' for status, n in self.restore_counts())})"
        else:
            rest = ""
        if self.unchanged:
            rest += f"; {len(self.unchanged)} already as asked"
        if self.refused:
            rest += f"; {len(self.refused)} cannot change"
        return head, rest + "."

    def fingerprint(self) -> str:
        """Return a digest of the rows that change as they are now, for the review to carry.

        It covers each row's id, status and last update, and the status a restore brings
        back: what the review shows of them. Any write to one of them moves it.
        """
        rows = [(m.pk, m.status, m.updated_at, back_to) for m, back_to in self.change_rows()]
        return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:32]


class StalePlan(ValidationError):
    """The selection changed since it was reviewed; `plan` is what the action would do now."""

    def __init__(self, plan: BulkPlan, message: str):
        self.plan = plan
        super().__init__(message, code="stale_plan")


def bulk_plan(
    *,
    action: str,
    memories: Sequence[Memory],
    category: str = "",
    composite: Composite | None = None,
) -> BulkPlan:
    """Sort the selected memories into those the action changes, leaves, or cannot change."""
    if action not in ACTIONS:
        raise ValidationError({"action": f"Choose one of: {', '.join(ACTIONS.values())}."})
    plan = BulkPlan(action=action)
    if action == "archive":
        for memory in memories:
            archived = memory.status == Memory.Status.ARCHIVED
            (plan.unchanged if archived else plan.change).append(memory)
    elif action == "restore":
        for memory in memories:
            if memory.status != Memory.Status.ARCHIVED:
                plan.unchanged.append(memory)
            elif memory.superseded_by_id is not None:
                plan.refused.append((memory, superseded_reasons([memory])[memory.pk]))
            else:
                plan.change.append(memory)
        plan.restore_to = statuses_before_archive([memory.pk for memory in plan.change])
    elif action == "move":
        _plan_move(plan, memories, category)
    else:
        _plan_add(plan, memories, composite)
    return plan


def _plan_move(plan: BulkPlan, memories: Sequence[Memory], category: str) -> None:
    if not category:
        raise ValidationError({"category": "Choose the category to move them to."})
    projects = {memory.project_id for memory in memories}
    having = set(
        Category.objects.filter(project_id__in=projects, name=category).values_list(
            "project_id", flat=True
        )
    )
    taken = set(
        Memory.objects.filter(project_id__in=projects, category=category).values_list(
            "project_id", "normalized_hash"
        )
    )
    for memory in memories:
        key = (memory.project_id, memory.normalized_hash)
        if memory.category == category:
            plan.unchanged.append(memory)
        elif memory.project_id not in having:
            plan.refused.append((memory, f"{category} is not a category of its project's pack"))
        elif key in taken:
            plan.refused.append((memory, f"an identical memory is already in {category}"))
        else:
            taken.add(key)
            plan.change.append(memory)


def _plan_add(plan: BulkPlan, memories: Sequence[Memory], composite: Composite | None) -> None:
    if composite is None:
        raise ValidationError({"composite": "Choose the composite to add them to."})
    refuse_archived_head(composite.head)
    present = set(composite.members.values_list("member_id", flat=True))
    for memory in memories:
        if memory.pk in present:
            plan.unchanged.append(memory)
        elif memory.pk == composite.head_id:
            plan.refused.append((memory, "it heads this composite"))
        elif memory.project_id != composite.project_id:
            plan.refused.append((memory, "it belongs to another project"))
        elif memory.status == Memory.Status.ARCHIVED:
            plan.refused.append((memory, "it is archived"))
        else:
            plan.change.append(memory)


@transaction.atomic
def bulk_apply(
    *,
    action: str,
    memory_ids: Sequence[int],
    expected: int,
    actor,
    category: str = "",
    composite: Composite | None = None,
    reason: str = "",
    fingerprint: str = "",
    expected_revisions: Mapping[int, int] | None = None,
) -> BulkPlan:
    """Apply the action to the memories it can change, as reviewed.

    Refuse with StalePlan, writing nothing, if their count is not `expected` or, given a
    `fingerprint` (BulkPlan.fingerprint of the review), if one of them changed since; given
    `expected_revisions` (the store revisions the review read), a store row the agent
    revised since refuses it in the store's transaction (StoreRowChanged), nothing written.
    """
    memories = list(
        Memory.objects.select_for_update(of=("self",))
        .select_related("project")
        .filter(pk__in=memory_ids)
        .order_by("pk")
    )
    plan = bulk_plan(action=action, memories=memories, category=category, composite=composite)
    count = len(plan.change)
    if count != expected:
        raise StalePlan(
            plan,
            f"The selection changed since you reviewed it: {count} memor"
            f"{'y' if count == 1 else 'ies'} would change now, not {expected}. "
            "Nothing was written; review it again.",
        )
    if fingerprint and fingerprint != plan.fingerprint():
        raise StalePlan(
            plan,
            "The selection changed since you reviewed it: someone else changed one of these "
            "memories meanwhile. Nothing was written; review it again.",
        )
    if not plan.change:
        return plan
    if action == "add":
        composite_member_add(composite=composite, members=plan.change, actor=actor, reason=reason)
        return plan
    now = now_ms()
    records = []
    for memory in plan.change:
        if action == "archive":
            changes = mark_archived(memory, reason=reason, now=now)
        elif action == "move":
            changes = {"category": [memory.category, category]}
            memory.category = category
            memory.updated_at = max(now, memory.updated_at + 1)
        else:
            changes = mark_restored(memory, status=plan.restore_to[memory.pk], now=now)
        records.append((AUDIT_ACTIONS[action], memory, changes))
    resolved = as_actor(actor)
    receipts = [
        store_backend().write_memories(
            project=project,
            changes=[
                StoreChange(m, reason=reason, expected_revision=revision_for(expected_revisions, m))
                for m in group
            ],
        )
        for project, group in _by_project(plan.change)
    ]
    with acting(actor=actor, reason=reason):
        bulk_update_with_history(
            plan.change,
            Memory,
            WRITTEN_FIELDS[action],
            default_user=actor if resolved.kind == "person" else None,
            default_change_reason=reason or f"bulk {ACTIONS[action]}",
            custom_historical_attrs={
                "history_actor": resolved.label,
                "history_actor_kind": resolved.kind,
            },
        )
        for receipt in receipts:
            receipt.settle()
        for audit_action, memory, changes in records:
            audit_record(
                action=audit_action,
                target=memory,
                project=memory.project,
                category=memory.category,
                changes=changes,
            )
    return plan


def _by_project(memories: Sequence[Memory]) -> list[tuple]:
    """Return the memories grouped by project, each group in the order given."""
    groups: dict[int, tuple] = {}
    for memory in memories:
        groups.setdefault(memory.project_id, (memory.project, []))[1].append(memory)
    return list(groups.values())
