"""What the overview shows of each project, read in a fixed number of queries per project.

Counts come from the database (GROUP BY), stale headers from the header map's selector, and
injection use from the ledger's at the project's budget (`coverage`): counted for the
projects asked for, otherwise only when this process keeps the project prepared. Nothing
here walks memories one by one.
"""

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field

from django.db.models import Count

from memadmin.audit.models import AuditEvent
from memadmin.core.clock import now_ms
from memadmin.headermap.stale_selectors import stale_header_ids
from memadmin.memories.models import Memory
from memadmin.memories.selectors import LIVE_STATUSES, unknown_category_counts
from memadmin.projects.models import Project

from .coverage import ProjectCoverage, kept_coverage, project_coverage

DAY_MS = 86_400_000
EXPIRING_DAYS = 7
EXPIRING_SHOWN = 5
CHANGES_SHOWN = 10


@dataclass
class ProjectOverview:
    """One project's figures for the overview; `coverage` None: not counted yet."""

    project: Project
    total: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    by_category: list[tuple[str, int]] = field(default_factory=list)
    coverage: ProjectCoverage | None = None
    stale_headers: int = 0
    flagged: list[tuple[str, int]] = field(default_factory=list)
    expiring: int = 0
    expiring_soonest: list[Memory] = field(default_factory=list)
    changes: list[AuditEvent] = field(default_factory=list)

    @property
    def live(self) -> int:
        return sum(self.by_status.get(status, 0) for status in LIVE_STATUSES)


def project_overviews(*, counted: Collection[int] = ()) -> list[ProjectOverview]:
    """Return every project's overview, by name.

    The coverage of the projects whose primary keys are in `counted` is counted now; the
    others' only when this process keeps them prepared (`coverage.kept_coverage`).
    """
    projects = list(Project.objects.order_by("name"))
    overviews = {project.pk: ProjectOverview(project=project) for project in projects}
    # One count by project, status and category, the order of their index: read from the
    # index alone (SQLite's planner otherwise walks 100,000 rows for the live categories).
    live_categories: Counter[tuple[int, str]] = Counter()
    counts = Memory.objects.order_by().values("project", "status", "category")
    for row in counts.annotate(n=Count("id")):
        overview = overviews[row["project"]]
        overview.by_status[row["status"]] = overview.by_status.get(row["status"], 0) + row["n"]
        overview.total += row["n"]
        if row["status"] in LIVE_STATUSES:
            live_categories[row["project"], row["category"]] += row["n"]
    for (pk, category), n in sorted(live_categories.items(), key=lambda kv: (-kv[1], kv[0][1])):
        overviews[pk].by_category.append((category, n))
    by_identity = {project.identity: overviews[project.pk] for project in projects}
    for identity, category, count in unknown_category_counts():
        by_identity[identity].flagged.append((category, count))
    now = now_ms()
    soon = Memory.objects.filter(
        status__in=LIVE_STATUSES, expires_at__gte=now, expires_at__lt=now + EXPIRING_DAYS * DAY_MS
    )
    for row in soon.order_by().values("project").annotate(n=Count("id")):
        overviews[row["project"]].expiring = row["n"]
    for overview in overviews.values():
        _fill_project(overview, soon, now, count=overview.project.pk in counted)
    return list(overviews.values())


def _fill_project(overview: ProjectOverview, soon, now: int, *, count: bool) -> None:
    project = overview.project
    if overview.expiring:
        overview.expiring_soonest = list(
            soon.filter(project=project).order_by("expires_at", "pk")[:EXPIRING_SHOWN]
        )
    overview.stale_headers = len(stale_header_ids(project))
    overview.changes = list(
        AuditEvent.objects.filter(project=project).order_by("-created_at", "-pk")[:CHANGES_SHOWN]
    )
    if overview.total:
        overview.coverage = (
            project_coverage(project, now=now) if count else kept_coverage(project, now=now)
        )
