"""The health queue: what in a project needs a curator, each entry with the action resolving it.

Six kinds of entry, in this order: memories that will not be injected at the project's
budget although permanent or important (`dropped`), near-duplicate clusters
(`duplicates`), memories in a category the pack lacks (`unknown_category`), expiring ones
(`expiring`), stale headers (`stale_header`), and memories with no importance, or the
default 50 where too many share it (`importance`).
"""

from dataclasses import dataclass, field

from django.db.models import Q
from django.urls import reverse

from memadmin.core.clock import now_ms
from memadmin.headermap.stale_selectors import stale_header_ids
from memadmin.ledger.counters import choose_counter
from memadmin.ledger.selectors import ledger_preview
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import category_names

from .analysis import is_current
from .models import Analysis
from .selectors import Thresholds, duplicate_clusters

DEFAULT_IMPORTANCE = 50
CROWDED_SHARE = 0.25  # the default importance is crowded when this share of memories has it
CROWDED_MIN = 10  # ... and at least this many do
IMPORTANT = 80
EXPIRING_DAYS = 7
DAY_MS = 86_400_000
KINDS = {
    "dropped": "Left out of the injection",
    "duplicates": "Near-duplicates",
    "unknown_category": "Category the pack lacks",
    "expiring": "Expiring soon",
    "stale_header": "Stale headers",
    "importance": "Importance to set",
}


@dataclass(frozen=True)
class HealthEntry:
    """One thing to resolve: what, about which memories, and where to resolve it."""

    kind: str
    message: str
    action: str
    action_label: str
    memories: list[Memory] = field(default_factory=list)

    def to_json(self) -> dict:
        """Return the entry as `manage.py health --json` prints it."""
        return {
            "kind": self.kind,
            "ids": [memory.pk for memory in self.memories],
            "display_ids": [memory.display_id for memory in self.memories],
            "message": self.message,
            "action": self.action,
        }


@dataclass(frozen=True)
class HealthReport:
    """A project's health queue, and whether its near-duplicates are still being computed."""

    project: Project
    entries: list[HealthEntry]
    computing: bool
    budget: int

    def counts(self) -> dict[str, int]:
        """Return how many entries of each kind there are, every kind named."""
        counts = dict.fromkeys(KINDS, 0)
        for entry in self.entries:
            counts[entry.kind] += 1
        return counts

    def to_json(self) -> dict:
        """Return the report as `manage.py health --json` prints it."""
        return {
            "project": self.project.identity,
            "budget": self.budget,
            "computing": self.computing,
            "counts": self.counts(),
            "entries": [entry.to_json() for entry in self.entries],
        }


def _edit(memory: Memory) -> str:
    return reverse("memories:edit", args=[memory.pk])


def _live(project: Project):
    return Memory.objects.filter(project=project).exclude(status=Memory.Status.ARCHIVED)


def _dropped(project: Project, budget: int) -> list[HealthEntry]:
    """Return the permanent or important memories the injection leaves out for lack of room.

    The injection judged is the `pack` mode's (a plugin that reads the project's pack), so a
    project of custom categories is judged on its budget, not on the stock plugin's reader.
    """
    preview = ledger_preview(
        project, budget=budget, counter=choose_counter("claude"), now_ms=now_ms(), modes=("pack",)
    )
    if preview.is_empty:
        return []
    by_display = preview.inputs.pk_of
    wanted = {}
    for row in preview.results["pack"].rows:
        if row.injected or row.reason != "over budget":
            continue
        wanted[by_display[row.memory_id]] = row.tokens
    candidates = _live(project).filter(
        Q(status=Memory.Status.PERMANENT) | Q(importance__gte=IMPORTANT)
    )
    memories = [m for m in candidates.order_by("pk") if m.pk in wanted]
    return [
        HealthEntry(
            kind="dropped",
            message=(
                f"#{m.display_id} ({m.status}, importance {m.importance}) is not injected at "
                f"{budget} tokens: over budget."
            ),
            action=_edit(m),
            action_label="edit (importance, status) or shorten",
            memories=[m],
        )
        for m in memories
    ]


def _duplicates(project: Project, analysis: Analysis | None) -> list[HealthEntry]:
    page = reverse("curation:duplicates", args=[project.pk])
    clusters = duplicate_clusters(analysis, Thresholds())
    memories = Memory.objects.in_bulk({pk for c in clusters for pk in c.members})
    return [
        HealthEntry(
            kind="duplicates",
            message=(
                f"{len(cluster.members)} memories say almost the same thing "
                f"({cluster.kind}, similarity {cluster.similarity:.2f})."
            ),
            action=f"{page}#cluster-{number}",
            action_label="merge, archive or group",
            memories=[memories[pk] for pk in cluster.members if pk in memories],
        )
        for number, cluster in enumerate(clusters, start=1)
    ]


def _unknown_category(project: Project) -> list[HealthEntry]:
    if project.pack_id is None:
        return []
    known = category_names(project)
    return [
        HealthEntry(
            kind="unknown_category",
            message=f"#{m.display_id} is in {m.category}, which the pack does not define.",
            action=_edit(m),
            action_label="move to a category",
            memories=[m],
        )
        for m in _live(project).exclude(category__in=known).order_by("pk")
    ]


def _expiring(project: Project, now: int) -> list[HealthEntry]:
    soon = now + EXPIRING_DAYS * DAY_MS
    rows = _live(project).filter(expires_at__isnull=False, expires_at__lte=soon)
    return [
        HealthEntry(
            kind="expiring",
            message=(
                f"#{m.display_id} {'expired' if m.expires_at <= now else 'expires'} "
                f"{_days(m.expires_at - now)}."
            ),
            action=_edit(m),
            action_label="keep (make permanent) or archive",
            memories=[m],
        )
        for m in rows.order_by("expires_at", "pk")
    ]


def _days(delta_ms: int) -> str:
    days = abs(delta_ms) // DAY_MS
    when = "today" if days == 0 else f"{days} day{'s' if days != 1 else ''}"
    if days == 0:
        return when
    return f"{when} ago" if delta_ms < 0 else f"in {when}"


def _stale_headers(project: Project) -> list[HealthEntry]:
    ids = stale_header_ids(project)
    page = reverse("headermap:stale")
    return [
        HealthEntry(
            kind="stale_header",
            message=f"Header #{m.display_id}: its details changed since it was last synced.",
            action=page,
            action_label="review and mark synced",
            memories=[m],
        )
        for m in Memory.objects.filter(pk__in=ids).order_by("pk")
    ]


def _importance(project: Project) -> list[HealthEntry]:
    live = _live(project)
    total = live.count()
    at_default = live.filter(importance=DEFAULT_IMPORTANCE).count()
    crowded = at_default >= CROWDED_MIN and at_default >= CROWDED_SHARE * total
    rows = live.filter(importance__isnull=True)
    if crowded:
        rows = rows | live.filter(importance=DEFAULT_IMPORTANCE)
    entries = []
    for m in rows.order_by("pk"):
        why = (
            "has no importance"
            if m.importance is None
            else f"has the default importance 50, shared by {at_default} of {total} memories"
        )
        entries.append(
            HealthEntry(
                kind="importance",
                message=f"#{m.display_id} {why}.",
                action=_edit(m),
                action_label="set its importance",
                memories=[m],
            )
        )
    return entries


def health_report(project: Project, analysis: Analysis | None) -> HealthReport:
    """Return the project's health queue; duplicates come from `analysis` when it is current."""
    budget = project.injection_budget
    current = is_current(analysis, project)
    entries = (
        _dropped(project, budget)
        + (_duplicates(project, analysis) if current else [])
        + _unknown_category(project)
        + _expiring(project, now_ms())
        + _stale_headers(project)
        + _importance(project)
    )
    return HealthReport(project=project, entries=entries, computing=not current, budget=budget)
