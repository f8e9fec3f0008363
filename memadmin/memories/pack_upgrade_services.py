"""Upgrade a project's pack: plan it, then apply it in one transaction or not at all.

`pack_upgrade_plan` only reads. `pack_upgrade` plans again under a lock and refuses
(UpgradeRefused, nothing written) if the plan holds any refusal; given the fingerprint of
the plan a person confirmed, it refuses (StaleUpgradePlan) if the plan is no longer that one.
An upgrade changes the taxonomy (the pack, its categories and their criteria) and moves the
memories of removed categories, so it is the memories', above the taxonomy.
"""

from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.db import transaction
from simple_history.utils import bulk_update_with_history

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.core.packs import PackSpec, criteria_to_dict
from memadmin.projects.models import Project
from memadmin.projects.store import StoreChange, store_backend
from memadmin.taxonomy.models import Category
from memadmin.taxonomy.services import pack_record, surface_hash_note
from memadmin.taxonomy.upgrades import (
    NOTHING,
    Collision,
    CurrentCategory,
    UpgradePlan,
    plan_upgrade,
)

from .models import Memory
from .selectors import categories_with_counts


class UpgradeRefused(ValidationError):
    """The upgrade's plan holds refusals; `plan` is that plan. Nothing was written."""

    def __init__(self, plan: UpgradePlan):
        self.plan = plan
        super().__init__(list(plan.refusals), code="upgrade_refused")


class StaleUpgradePlan(ValidationError):
    """The plan changed since it was shown; `plan` is the plan as it is now. Nothing was written."""

    def __init__(self, plan: UpgradePlan):
        self.plan = plan
        super().__init__(
            "The project or the pack file changed since this plan was shown, so the plan is "
            "no longer the one you saw. Nothing was written: review the plan as it is now, "
            "then apply it again.",
            code="stale_upgrade_plan",
        )


def _hashes_in(project, category: str, *, by_id: bool) -> list[tuple[int, str]]:
    """Return (display id, normalized hash) of the category's memories.

    In id order if ``by_id``, else in the list's order (newest first).
    """
    rows = Memory.objects.filter(project=project, category=category)
    if by_id:
        rows = rows.order_by("id")
    return [
        (m.display_id, m.normalized_hash) for m in rows.only("id", "upstream_id", "normalized_hash")
    ]


def _collisions(project, current_names: set[str], new_names: tuple[str, ...], mapping) -> list:
    """Return the moved memories that would land on an exact duplicate in their new category."""
    removed = [old for old in mapping if old in current_names and old not in new_names]
    seen: dict[tuple[str, str], int] = {}
    for target in {mapping[old] for old in removed}:
        for display_id, normalized_hash in _hashes_in(project, target, by_id=False):
            seen[(target, normalized_hash)] = display_id
    collisions = []
    for old in removed:
        target = mapping[old]
        for display_id, normalized_hash in _hashes_in(project, old, by_id=True):
            key = (target, normalized_hash)
            if key in seen:
                collisions.append(Collision(display_id, old, seen[key], target))
            else:
                seen[key] = display_id
    return collisions


def pack_upgrade_plan(*, project: Project, spec: PackSpec, mapping: Mapping[str, str]):
    """Return the plan for upgrading the project to ``spec`` with memories moved per mapping."""
    if project.pack_id is None:
        raise ValidationError(
            f"{project.name} runs no pack yet; install one with `manage.py pack install`."
        )
    rows = list(categories_with_counts(project))
    current = [
        CurrentCategory(
            name=row.name,
            priority=row.priority,
            ttl_days=row.ttl_days,
            legacy=row.legacy,
            maps_to=row.maps_to,
            default=row.default_criteria,
            override=row.override_criteria,
            memory_count=row.memory_count,
        )
        for row in rows
    ]
    pack = project.pack
    return plan_upgrade(
        current=current,
        old_routing_test=pack.routing_test,
        old_label=f"{pack.name} {pack.version}",
        old_digest=pack.digest,
        spec=spec,
        mapping=mapping,
        collisions=_collisions(project, {r.name for r in rows}, spec.names(), mapping),
    )


@transaction.atomic
def pack_upgrade(
    *,
    project: Project,
    spec: PackSpec,
    mapping: Mapping[str, str] | None = None,
    actor,
    reason: str = "",
    fingerprint: str = "",
) -> UpgradePlan:
    """Upgrade the project to ``spec`` as planned, in one transaction; return the plan.

    Defaults are replaced and overrides kept; an override whose default moved is flagged
    with the default it was written against. Memories of removed categories move as the
    mapping says. A plan with refusals raises UpgradeRefused and changes nothing; given a
    ``fingerprint`` (UpgradePlan.fingerprint of the plan shown), a plan that differs from it
    raises StaleUpgradePlan and changes nothing.
    """
    project = (
        Project.objects.select_for_update(of=("self",)).select_related("pack").get(pk=project.pk)
    )
    mapping = dict(mapping or {})
    plan = pack_upgrade_plan(project=project, spec=spec, mapping=mapping)
    if fingerprint and fingerprint != plan.fingerprint():
        raise StaleUpgradePlan(plan)
    if not plan.allowed:
        raise UpgradeRefused(plan)
    if plan.kind == NOTHING:
        return plan
    label = f"pack upgrade {plan.old_pack} -> {plan.new_pack}"
    with acting(actor=actor, reason=reason or label):
        pack = pack_record(spec)
        _update_categories(project, spec)
        moved = _move_memories(project, plan, actor=actor, reason=reason or label)
        Category.objects.filter(project=project, name__in=plan.removed).delete()
        project.pack = pack
        project.save(update_fields=["pack"])
        event = audit_record(
            action="pack_upgraded",
            target=pack,
            project=project,
            changes={
                "from": plan.old_pack,
                "to": plan.new_pack,
                "kind": plan.kind,
                "added": list(plan.added),
                "removed": list(plan.removed),
                "moved": moved,
                "flagged": [f.name for f in plan.flagged],
                "defaults_changed": list(plan.defaults_changed),
            },
        )
        surface_hash_note(project=project, change=label, event=event)
    return plan


def _update_categories(project: Project, spec: PackSpec) -> None:
    held = {c.name: c for c in Category.objects.select_for_update().filter(project=project)}
    for spec_category in spec.categories:
        default = criteria_to_dict(spec_category.criteria)
        values = {
            "priority": spec_category.priority,
            "ttl_days": spec_category.ttl_days,
            "legacy": spec_category.legacy,
            "maps_to": spec_category.maps_to or "",
        }
        category = held.get(spec_category.name)
        if category is None:
            Category.objects.create(
                project=project, name=spec_category.name, **values, default_criteria=default
            )
            continue
        changed = any(getattr(category, k) != v for k, v in values.items())
        if category.default_criteria != default:
            if category.is_overridden:
                if not category.default_moved:
                    category.previous_default = category.default_criteria
                category.default_moved = True
            if category.default_moved and default == category.previous_default:
                # Back to the default the override was written against: nothing moved.
                category.default_moved = False
                category.previous_default = None
            category.default_criteria = default
            changed = True
        if changed:
            for name, value in values.items():
                setattr(category, name, value)
            category.revision += 1
            category.save()


def _move_memories(project: Project, plan: UpgradePlan, *, actor, reason: str) -> dict:
    """Move the memories of removed categories as mapped; return {old: count}."""
    moved: dict[str, int] = {}
    for move in plan.moves:
        moved[move.old] = _move(
            project=project, old=move.old, new=move.new, actor=actor, reason=reason
        )
    return moved


def _move(*, project, old: str, new: str, actor, reason: str) -> int:
    """Move the memories of category ``old`` to ``new`` (store first); return how many."""
    now = now_ms()
    memories = list(Memory.objects.select_for_update().filter(project=project, category=old))
    for memory in memories:
        memory.category = new
        memory.updated_at = max(now, memory.updated_at + 1)
    resolved = as_actor(actor)
    acting_actor = {"history_actor": resolved.label, "history_actor_kind": resolved.kind}
    # A synced project's store takes the moves first, or the upgrade writes nothing.
    receipt = store_backend().write_memories(
        project=project, changes=[StoreChange(m) for m in memories]
    )
    bulk_update_with_history(
        memories,
        Memory,
        ["category", "updated_at"],
        default_change_reason=reason,
        custom_historical_attrs=acting_actor,
    )
    receipt.settle()
    for memory in memories:
        audit_record(
            action="recategorised",
            target=memory,
            project=project,
            category=new,
            changes={"category": [old, new]},
        )
    return len(memories)
