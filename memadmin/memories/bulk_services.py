"""Curate many memories at once: archive, restore, move to another category, add to a composite.

Each action is planned first (`bulk_plan`): which of the selected memories it would change,
which are already as asked, and which it cannot change and why. The person confirms the plan's
count and fingerprint (the rows that change as reviewed: id, status, last update, status a
restore brings back); `bulk_apply` plans again under row locks and refuses with StalePlan,
writing nothing, if either moved meanwhile. Only the memories it can change are written; one
audit event per memory.
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
from memadmin.core.clock import now_ms
from memadmin.projects.store import StoreChange, store_backend
from memadmin.taxonomy.models import Category

from .archive_services import mark_archived, mark_restored, statuses_before_archive
from .models import Memory
from .relation_hooks import relations
from .revision_fields import revision_for

ACTIONS = {
    "archive": "archive",
    "restore": "restore",
    "move": "move to another category",
    "add": "add to a composite",
}

MERGE = "merge"  # offered beside ACTIONS; the merge page (`merge_services`) carries it out

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
    composite: object | None = None,
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


def actions_allowed(
    memories: Sequence[Memory], *, chosen: bool, can_move: bool = True
) -> list[str]:
    """Return the actions (ACTIONS, then MERGE) that could change some of `memories`.

    `chosen` says they are the selection itself; otherwise they are the rows a selection is
    taken from (a page of the list), and merge is offered if two of them could merge. An
    action every memory would refuse or leave as it is is not offered; `can_move` is False
    when there is no category to move to.
    """
    live = [memory for memory in memories if memory.status != Memory.Status.ARCHIVED]
    allowed = []
    if live:
        allowed.append("archive")
    if any(m.status == Memory.Status.ARCHIVED and m.superseded_by_id is None for m in memories):
        allowed.append("restore")
    if memories and can_move:
        allowed.append("move")
    if live:
        allowed.append("add")
    groups = {(memory.project_id, memory.category) for memory in live}
    if chosen:
        mergeable = len(live) == len(memories) >= 2 and len(groups) == 1
    else:
        mergeable = len(groups) < len(live)  # two live rows share project and category
    if mergeable:
        allowed.append(MERGE)
    return allowed


def superseded_reasons(memories: Sequence[Memory]) -> dict[int, str]:
    """Return, for each superseded memory, why restoring it is refused and what to do instead.

    Its successor is named by the id the agent sees: "merged into #9: undo the merge from
    #9's page instead", "fragmented into details under #9: they hold its text", or
    "superseded by #9: the newer memory holds what it said" (the agent's own supersede).
    """
    superseded = [memory for memory in memories if memory.superseded_by_id is not None]
    successors = dict(
        Memory.objects.filter(
            pk__in={memory.superseded_by_id for memory in superseded}
        ).values_list("pk", "upstream_id")
    )
    reasons = {}
    for memory in superseded:
        upstream_id = successors.get(memory.superseded_by_id)
        successor = f"#{memory.superseded_by_id if upstream_id is None else upstream_id}"
        metadata = memory.metadata if isinstance(memory.metadata, dict) else {}
        if metadata.get("fragmented_into") is not None:
            reasons[memory.pk] = f"fragmented into details under {successor}: they hold its text"
        elif str(metadata.get("archive_reason", "")).startswith("merged into"):
            reasons[memory.pk] = (
                f"merged into {successor}: undo the merge from {successor}'s page instead"
            )
        else:
            reasons[memory.pk] = f"superseded by {successor}: the newer memory holds what it said"
    return reasons


WITHHELD_NAMED = 3  # how many superseded memories the note names, before "and n more"


def restore_withheld(memories: Sequence[Memory]) -> str:
    """Say why restore is not offered for memories (the selection, or a page's rows) whose
    archived ones were all superseded ("" if restore is offered, or none was superseded):
    each comes back another way, or not at all, as `superseded_reasons` says."""
    superseded = [m for m in memories if m.status == Memory.Status.ARCHIVED and m.superseded_by_id]
    restorable = any(
        m.status == Memory.Status.ARCHIVED and m.superseded_by_id is None for m in memories
    )
    if not superseded or restorable:
        return ""
    reasons = superseded_reasons(superseded[:WITHHELD_NAMED])
    said = [f"#{m.display_id} was {reasons[m.pk]}" for m in superseded[:WITHHELD_NAMED]]
    more = len(superseded) - WITHHELD_NAMED
    return (
        "Restore is not offered: "
        + "; ".join(said)
        + (f"; and {more} more like {'it' if more == 1 else 'them'}" if more > 0 else "")
        + "."
    )


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


def _plan_add(plan: BulkPlan, memories: Sequence[Memory], composite: object | None) -> None:
    if composite is None:
        raise ValidationError({"composite": "Choose the composite to add them to."})
    relations().refuse_archived_head(composite.head)
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
    composite: object | None = None,
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
        relations().add_members(
            composite=composite, members=plan.change, actor=actor, reason=reason
        )
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
