"""The health queue: what in a project needs a curator, ranked by what it costs the injection.

Six kinds of entry, in this order (`KINDS`): permanent or important memories the injection
leaves out at the project's budget; stale headers (the injection shows their old summary);
memories in a category the pack lacks (no plugin reads them); facts said twice (clusters of
rewordings, which spend the budget twice); expiring memories; and importance to set (none
at all, or the default 50 shared by too many to rank them).

Where many rows would say the same thing, they are one row naming how many, linking to the
list of exactly those memories where a bulk action resolves them ("126 memories share the
default importance 50: set their importance in bulk"). Each entry says which role its
action needs; the page shows the action only to those who hold it, and a view of the same
memories to the others. Messages are sentences built here, for the page and
`manage.py health` alike.
"""

from dataclasses import dataclass, field

from django.db.models import Q
from django.http import QueryDict
from django.urls import reverse

from memadmin.core.clock import now_ms
from memadmin.headermap.stale_selectors import stale_header_ids
from memadmin.ledger.counters import choose_counter
from memadmin.ledger.selectors import ledger_preview
from memadmin.memories.forms import IMPORTANCE_NONE
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
GROUP_FROM = 5  # this many rows saying the same thing are shown as one
# The kinds, in the queue's order: what costs the injection most comes first.
KINDS = {
    "dropped": "Left out of the injection",
    "stale_header": "Stale headers",
    "unknown_category": "Category no plugin reads",
    "duplicates": "Said twice",
    "expiring": "Expiring soon",
    "importance": "Importance to set",
}


@dataclass(frozen=True)
class HealthEntry:
    """One thing to resolve: what, about which memories, and where (and who) resolves it.

    `action` needs `action_role`; `view` (if any) shows the same memories to anyone.
    """

    kind: str
    message: str
    action: str
    action_label: str
    memories: list[Memory] = field(default_factory=list)
    action_role: str = "editor"
    view: str = ""
    view_label: str = ""

    @property
    def label(self) -> str:
        """Return the kind in words, as the page's What column shows it."""
        return KINDS[self.kind]

    @property
    def count(self) -> int:
        """Return how many memories the entry is about."""
        return len(self.memories)

    def to_json(self) -> dict:
        """Return the entry as `manage.py health --json` prints it."""
        return {
            "kind": self.kind,
            "label": self.label,
            "count": self.count,
            "ids": [memory.pk for memory in self.memories],
            "display_ids": [memory.display_id for memory in self.memories],
            "message": self.message,
            "action": self.action,
            "action_label": self.action_label,
            "action_role": self.action_role,
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


def _listed(project: Project, **filters) -> str:
    """Return the memory list showing the project's memories that match `filters`."""
    query = QueryDict(mutable=True)
    query.update({"project": project.pk, **filters})
    return f"{reverse('memories:list')}?{query.urlencode()}"


def _live(project: Project):
    return Memory.objects.filter(project=project).exclude(status=Memory.Status.ARCHIVED)


def _ranked(memories) -> list[Memory]:
    """Return the memories permanent first, then the most important first."""
    return sorted(
        memories,
        key=lambda m: (m.status != Memory.Status.PERMANENT, -(m.importance or 0), m.pk),
    )


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
    wanted = {
        by_display[row.memory_id]
        for row in preview.results["pack"].rows
        if not row.injected and row.reason == "over budget"
    }
    candidates = _live(project).filter(
        Q(status=Memory.Status.PERMANENT) | Q(importance__gte=IMPORTANT)
    )
    memories = _ranked(m for m in candidates if m.pk in wanted)
    ledger = reverse("ledger:page", args=[project.pk])
    if len(memories) >= GROUP_FROM:
        return [
            HealthEntry(
                kind="dropped",
                message=(
                    f"{len(memories)} permanent or important memories (importance "
                    f"{IMPORTANT} or more) are not injected at {budget} tokens: over budget."
                ),
                action=ledger,
                action_label="see the injection; shorten them, or raise the budget",
                action_role="viewer",
                memories=memories,
            )
        ]
    return [
        HealthEntry(
            kind="dropped",
            message=(
                f"#{m.display_id} ({m.status}, importance {m.importance}) is not injected at "
                f"{budget} tokens: over budget."
            ),
            action=_edit(m),
            action_label="edit (importance, status) or shorten",
            view=ledger,
            view_label="see the injection",
            memories=[m],
        )
        for m in memories
    ]


def _stale_headers(project: Project) -> list[HealthEntry]:
    headers = list(Memory.objects.filter(pk__in=stale_header_ids(project)).order_by("pk"))
    page = reverse("headermap:stale")
    common = {
        "kind": "stale_header",
        "action": page,
        "action_label": "review and mark synced",
        "view": page,
        "view_label": "see what changed",
    }
    if len(headers) >= GROUP_FROM:
        message = (
            f"{len(headers)} headers' details changed since they were last synced: the "
            "injection shows their old summary."
        )
        return [HealthEntry(message=message, memories=headers, **common)]
    return [
        HealthEntry(
            message=f"Header #{m.display_id}: its details changed since it was last synced.",
            memories=[m],
            **common,
        )
        for m in headers
    ]


def _unknown_category(project: Project) -> list[HealthEntry]:
    if project.pack_id is None:
        return []
    by_category: dict[str, list[Memory]] = {}
    for memory in _live(project).exclude(category__in=category_names(project)).order_by("pk"):
        by_category.setdefault(memory.category, []).append(memory)
    entries = []
    for category, memories in sorted(by_category.items(), key=lambda item: -len(item[1])):
        if len(memories) == 1:
            (m,) = memories
            entries.append(
                HealthEntry(
                    kind="unknown_category",
                    message=(
                        f"#{m.display_id} is in {category}, which the pack does not define: "
                        "no plugin reads it."
                    ),
                    action=_edit(m),
                    action_label="move it to a category",
                    memories=memories,
                )
            )
            continue
        listed = _listed(project, category=category)
        entries.append(
            HealthEntry(
                kind="unknown_category",
                message=(
                    f"{len(memories)} memories are in {category}, which the pack does not "
                    "define: no plugin reads them."
                ),
                action=listed,
                action_label="move them to a category in bulk",
                view=listed,
                view_label="see them",
                memories=memories,
            )
        )
    return entries


def _duplicates(project: Project, analysis: Analysis | None) -> list[HealthEntry]:
    page = reverse("curation:duplicates", args=[project.pk])
    clusters = duplicate_clusters(analysis, Thresholds())
    memories = Memory.objects.in_bulk({pk for c in clusters for pk in c.members})
    if len(clusters) >= GROUP_FROM:
        members = [memories[pk] for c in clusters for pk in c.members if pk in memories]
        return [
            HealthEntry(
                kind="duplicates",
                message=(
                    f"{len(clusters)} groups of memories say one fact twice or more "
                    f"({len(members)} memories): the injection spends its budget on each."
                ),
                action=page,
                action_label="review them: merge or archive",
                action_role="viewer",
                memories=members,
            )
        ]
    return [
        HealthEntry(
            kind="duplicates",
            message=(
                f"{len(cluster.members)} memories say one fact ({cluster.kind}, similarity "
                f"{cluster.similarity:.2f})."
            ),
            action=f"{page}#cluster-{number}",
            action_label="review them: merge or archive",
            action_role="viewer",
            memories=[memories[pk] for pk in cluster.members if pk in memories],
        )
        for number, cluster in enumerate(clusters, start=1)
    ]


def _expiring(project: Project, now: int) -> list[HealthEntry]:
    soon = now + EXPIRING_DAYS * DAY_MS
    rows = list(
        _live(project)
        .filter(expires_at__isnull=False, expires_at__lte=soon)
        .order_by("expires_at", "pk")
    )
    expired = [m for m in rows if m.expires_at <= now]
    coming = [m for m in rows if m.expires_at > now]
    entries = [_expiry_entry(m, now) for m in expired]
    if len(coming) >= GROUP_FROM:
        listed = _listed(project, expiring=str(EXPIRING_DAYS))
        entries.append(
            HealthEntry(
                kind="expiring",
                message=f"{len(coming)} memories expire within {EXPIRING_DAYS} days.",
                action=listed,
                action_label="keep (make permanent) or archive them in bulk",
                view=listed,
                view_label="see them",
                memories=coming,
            )
        )
    else:
        entries += [_expiry_entry(m, now) for m in coming]
    return entries


def _expiry_entry(m: Memory, now: int) -> HealthEntry:
    return HealthEntry(
        kind="expiring",
        message=(
            f"#{m.display_id} {'expired' if m.expires_at <= now else 'expires'} "
            f"{_days(m.expires_at - now)}."
        ),
        action=_edit(m),
        action_label="keep (make permanent) or archive",
        memories=[m],
    )


def _days(delta_ms: int) -> str:
    days = abs(delta_ms) // DAY_MS
    when = "today" if days == 0 else f"{days} day{'s' if days != 1 else ''}"
    if days == 0:
        return when
    return f"{when} ago" if delta_ms < 0 else f"in {when}"


def _importance(project: Project) -> list[HealthEntry]:
    live = _live(project)
    total = live.count()
    unset = list(live.filter(importance__isnull=True).order_by("pk"))
    entries = []
    if len(unset) >= GROUP_FROM:
        listed = _listed(project, importance=IMPORTANCE_NONE)
        entries.append(
            HealthEntry(
                kind="importance",
                message=f"{len(unset)} memories have no importance: set it in bulk.",
                action=listed,
                action_label="set their importance in bulk",
                view=listed,
                view_label="see them",
                memories=unset,
            )
        )
    else:
        entries += [
            HealthEntry(
                kind="importance",
                message=f"#{m.display_id} has no importance.",
                action=_edit(m),
                action_label="set its importance",
                memories=[m],
            )
            for m in unset
        ]
    crowd = list(live.filter(importance=DEFAULT_IMPORTANCE).order_by("pk"))
    if len(crowd) >= CROWDED_MIN and len(crowd) >= CROWDED_SHARE * total:
        listed = _listed(project, importance=str(DEFAULT_IMPORTANCE))
        entries.append(
            HealthEntry(
                kind="importance",
                message=(
                    f"{len(crowd)} memories share the default importance "
                    f"{DEFAULT_IMPORTANCE}: set their importance in bulk."
                ),
                action=listed,
                action_label="set their importance in bulk",
                view=listed,
                view_label="see them",
                memories=crowd,
            )
        )
    return entries


def health_report(project: Project, analysis: Analysis | None) -> HealthReport:
    """Return the project's health queue; duplicates come from `analysis` when it is current."""
    budget = project.injection_budget
    current = is_current(analysis, project)
    entries = (
        _dropped(project, budget)
        + _stale_headers(project)
        + _unknown_category(project)
        + (_duplicates(project, analysis) if current else [])
        + _expiring(project, now_ms())
        + _importance(project)
    )
    return HealthReport(project=project, entries=entries, computing=not current, budget=budget)
