"""The store's state on memory pages: `{% load interop_tags %}{% store_banner project %}`.

A project synced from a store shows why it is read-only (the store moved, vanished, is
another store, cannot be written safely, or another writer owns it), or that its edits are
kept pending for the next sync on the machine with the file; a memory page also shows the
memory's pending change and its sync conflict, with both texts and a word diff.
"""

from django import template
from django.urls import reverse

from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from ..composites.conflicts import composite_conflicts
from ..forms import CompositeConflictResolveForm, ConflictResolveForm
from ..models import PendingCriteria, StoreBase, SyncConflict
from ..selectors import conflict_diff
from ..store_reads.proposals import pending_proposals
from ..store_reads.provenance import memory_provenance
from ..write_through.store_writes import GATEWAY, PENDING, project_store, store_mode

register = template.Library()


@register.inclusion_tag("interop/includes/store_banner.html")
def store_banner(project: Project | None) -> dict:
    """Render the read-only or pending banner of a project synced from a store."""
    if not project or project_store(project) is None:
        return {}
    return {
        "project": project,
        "read_only": GATEWAY.read_only_reason(project),
        "pending_mode": store_mode() == PENDING,
        "pending": StoreBase.objects.filter(
            memory__project=project, pending_since__isnull=False
        ).count(),
        "criteria_pending": PendingCriteria.objects.filter(project=project).exists(),
    }


@register.inclusion_tag("interop/includes/proposals.html", takes_context=True)
def store_proposals(context, project: Project | None, memory: Memory | None = None) -> dict:
    """Render the agent's pending proposals for a synced project, or one memory's (read-only).

    A curator is offered the project's queue page.
    """
    shown = pending_proposals(project, memory) if project else None
    if shown is None:
        return {}
    return {
        "shown": shown,
        "memory": memory,
        "project": project,
        "queue": False,
        "can_curate": bool(context.get("can", {}).get("curate")),
    }


@register.inclusion_tag("interop/includes/provenance.html")
def store_provenance(memory: Memory) -> dict:
    """Render a synced memory's provenance: observing sessions, links, verification."""
    shown = memory_provenance(memory)
    if shown is None:
        return {}
    provenance = shown.provenance
    return {
        "shown": shown,
        "provenance": provenance,
        "replaced": shown.linked(provenance.replaced),
        "replaced_by": shown.linked(provenance.replaced_by),
        "conflicts": shown.linked(provenance.conflicts),
    }


@register.inclusion_tag("interop/includes/memory_store.html", takes_context=True)
def memory_store(context, memory: Memory) -> dict:
    """Render a memory's pending change and sync conflict, with the curator's choices."""
    base = StoreBase.objects.filter(memory=memory).first()
    conflict = SyncConflict.objects.filter(memory=memory).first()
    next_url = reverse("memories:detail", args=[memory.pk])
    return {
        "memory": memory,
        "pending_since": base.pending_since if base else None,
        "conflict": conflict,
        "diff": conflict_diff(conflict) if conflict else None,
        "merge_form": ConflictResolveForm(conflict=conflict, next_url=next_url)
        if conflict
        else None,
        "side_form": ConflictResolveForm.for_sides(conflict, next_url) if conflict else None,
        "can_resolve": bool(context.get("can", {}).get("curate")),
        "csrf_token": context.get("csrf_token"),
        "next": next_url,
    }


@register.inclusion_tag("interop/includes/conflicts.html", takes_context=True)
def sync_conflicts(context) -> dict:
    """Render every open sync conflict, each with both texts, the word diff and the choices."""
    conflicts = list(
        SyncConflict.objects.select_related("memory", "memory__project").order_by("-found_at")
    )
    next_url = context["request"].get_full_path() if context.get("request") else ""
    return {
        "conflicts": [
            (
                conflict,
                conflict_diff(conflict),
                ConflictResolveForm(conflict=conflict, next_url=next_url),
                ConflictResolveForm.for_sides(conflict, next_url),
            )
            for conflict in conflicts
        ],
        # Each with the form its buttons post: the conflict's version, when it has one.
        "composite_conflicts": [
            (conflict, CompositeConflictResolveForm(initial={"version": conflict.get("version")}))
            for conflict in composite_conflicts()
        ],
        "can_resolve": bool(context.get("can", {}).get("curate")),
        "csrf_token": context.get("csrf_token"),
        "next": next_url,
    }
