"""Read categories: the one source of truth for a project's category list.

Forms, the tool enum, the facts parser, the prompt tags and the ledger's grouping all ask
`category_names` (or `categories_of`) rather than keeping lists of their own. The prompt
texts and their surface hash are assembled from the same rows.
"""

from collections.abc import Iterable
from dataclasses import dataclass, replace

from django.db.models import QuerySet

from memadmin.core.facts import AcceptedFact, FactsReport, parse_facts, unknown_category
from memadmin.core.packs import CategorySpec, criteria_from_dict
from memadmin.core.prompts import render_all, surface_hash

from .models import Category, SurfaceHashRecord


def categories_of(project) -> QuerySet[Category]:
    """Return the project's categories in priority order."""
    return Category.objects.filter(project=project).order_by("priority", "name")


def category_names(project, *, writable_only: bool = False) -> list[str]:
    """Return the project's category names in priority order (writable ones only if asked)."""
    categories = categories_of(project)
    if writable_only:
        categories = categories.filter(legacy=False)
    return list(categories.values_list("name", flat=True))


def category_by_name(project, name: str) -> Category:
    """Return one category of the project, or raise Category.DoesNotExist."""
    return Category.objects.select_related("project", "project__pack").get(
        project=project, name=name
    )


def prompt_categories(categories: Iterable[Category]) -> tuple[CategorySpec, ...]:
    """Return the rows as the renderer's plain data, each with its effective criteria."""
    return tuple(
        CategorySpec(
            name=category.name,
            priority=category.priority,
            ttl_days=category.ttl_days,
            legacy=category.legacy,
            maps_to=category.maps_to or None,
            criteria=criteria_from_dict(category.effective_criteria),
        )
        for category in categories
    )


def prompt_texts(project) -> dict[str, str]:
    """Return the historian, curate and tool texts assembled from the project's categories.

    A project without a pack has no texts (an empty dict).
    """
    if project.pack_id is None:
        return {}
    categories = prompt_categories(categories_of(project))
    if not categories:
        return {}
    return render_all(categories, project.pack.routing_test)


def current_surface_hash(project) -> str:
    """Return the digest of the project's three prompt texts ("" without a pack)."""
    texts = prompt_texts(project)
    return surface_hash(texts) if texts else ""


def surface_history(project) -> QuerySet[SurfaceHashRecord]:
    """Return every value the project's surface hash took, newest first."""
    return SurfaceHashRecord.objects.filter(project=project).select_related("audit_event")


def last_recorded_hash(project) -> str:
    """Return the newest recorded surface hash of the project ("" if none)."""
    return (
        SurfaceHashRecord.objects.filter(project=project)
        .order_by("-created_at", "-id")
        .values_list("value", flat=True)
        .first()
        or ""
    )


@dataclass(frozen=True)
class SurfaceState:
    """The surface hash now, and whether its history accounts for it."""

    value: str
    recorded: bool


def surface_state(project) -> SurfaceState:
    """Return the current surface hash and whether the newest record holds that value."""
    value = current_surface_hash(project)
    return SurfaceState(value=value, recorded=value == last_recorded_hash(project))


def legacy_tag(name: str, maps_to: str) -> str:
    """Return the rejection reason for a block tagged with a read-only legacy category."""
    return f"legacy category <{name}> is read-only; its facts belong in <{maps_to}>"


def facts_check(project, text: str) -> FactsReport:
    """Return the historian output parsed against the project's writable categories.

    A block tagged with one of the pack's legacy categories is rejected as read-only,
    naming where its facts belong, rather than as an unknown category.
    """
    report = parse_facts(text, category_names(project, writable_only=True))
    legacy = categories_of(project).filter(legacy=True).values_list("name", "maps_to")
    reasons = {unknown_category(name): legacy_tag(name, maps_to) for name, maps_to in legacy}
    report.rejected = [
        replace(item, reason=reasons[item.reason]) if item.reason in reasons else item
        for item in report.rejected
    ]
    return report


def accepted_by_category(report: FactsReport) -> dict[str, list[AcceptedFact]]:
    """Return the accepted facts grouped by category, categories in order of first fact."""
    grouped: dict[str, list[AcceptedFact]] = {}
    for fact in report.accepted:
        grouped.setdefault(fact.category, []).append(fact)
    return grouped
