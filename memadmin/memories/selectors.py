"""Read projects and memories."""

import hashlib
import json
from collections.abc import Iterable

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Length

from memadmin.audit.models import AuditEvent
from memadmin.core.clock import now_ms
from memadmin.projects.models import Project
from memadmin.taxonomy.models import Category
from memadmin.taxonomy.selectors import categories_of

from .models import Memory
from .search import memory_search

MAX_ID = 2**63 - 1  # the largest id a BigIntegerField holds
LIVE_STATUSES = (Memory.Status.ACTIVE, Memory.Status.PERMANENT)


def project_list() -> QuerySet[Project]:
    """Return every project with its pack, ordered by name."""
    return Project.objects.select_related("pack").order_by("name")


def project_by_identity(identity: str) -> Project:
    """Return the project with this upstream identity, or raise Project.DoesNotExist."""
    return Project.objects.select_related("pack").get(identity=identity)


def memory_list(
    *,
    project: Project | None = None,
    category: str = "",
    status: str = "",
    text: str = "",
    expiring_days: int | None = None,
    importance: str = "",
    min_length: int | None = None,
) -> QuerySet[Memory]:
    """Return memories filtered by project, category, status, a text fragment, expiry,
    importance and length, each with its length in characters (`characters`, to sort by).

    A category matches its name in any case, or a part of a name. Status `live` is active or
    permanent. `expiring_days` keeps the memories whose expiry falls in that many days. The
    text is searched through the full-text index, best match first (see `search`).
    `importance` is a number, or "none" for the memories without one. `min_length` keeps the
    memories of at least that many characters.
    """
    memories = Memory.objects.select_related("project").annotate(characters=Length("content"))
    if min_length is not None:
        memories = memories.filter(characters__gte=min_length)
    if project is not None:
        memories = memories.filter(project=project)
    if category:
        memories = memories.filter(category__icontains=category)
    if status == "live":
        memories = memories.filter(status__in=LIVE_STATUSES)
    elif status:
        memories = memories.filter(status=status)
    if expiring_days is not None:
        now = now_ms()
        memories = memories.filter(
            expires_at__gte=now, expires_at__lt=now + expiring_days * 86_400_000
        )
    if importance == "none":
        memories = memories.filter(importance__isnull=True)
    elif importance.isdigit():
        memories = memories.filter(importance=int(importance))
    if text:
        memories = memory_search(memories, text)
    return memories


def categories_with_counts(project) -> QuerySet[Category]:
    """Return the project's categories in priority order, each with `memory_count` (every
    status) and `live_count` (active and permanent, the overview's count)."""
    return categories_of(project).annotate(
        memory_count=Coalesce(_count_per_category(), 0),
        live_count=Coalesce(_count_per_category(live_only=True), 0),
    )


def _count_per_category(*, live_only: bool = False) -> Subquery:
    """Return the number of memories of OuterRef("project") in category OuterRef("name"):
    every status, or (`live_only`) active and permanent ones, as the overview counts."""
    rows = Memory.objects.filter(project=OuterRef("project"), category=OuterRef("name"))
    if live_only:
        rows = rows.filter(status__in=LIVE_STATUSES)
    return Subquery(rows.order_by().values("category").annotate(n=Count("id")).values("n"))


def category_names_known() -> list[str]:
    """Return every category name of any project's pack, sorted (the filter's suggestions)."""
    return sorted(set(Category.objects.values_list("name", flat=True)))


def memory_detail(pk: int) -> Memory:
    """Return one memory with its project and successor, or raise Memory.DoesNotExist."""
    return Memory.objects.select_related("project", "project__pack", "superseded_by").get(pk=pk)


def unknown_category_counts() -> list[tuple[str, str, int]]:
    """Return (project, category, count) for memories in categories their pack does not define."""
    defined = Category.objects.filter(project=OuterRef("project"), name=OuterRef("category"))
    rows = (
        Memory.objects.filter(project__pack__isnull=False)
        .exclude(Exists(defined))
        .values("project__identity", "category")
        .annotate(n=Count("id"))
        .order_by("project__identity", "category")
    )
    return [(r["project__identity"], r["category"], r["n"]) for r in rows]


def memory_matches(term: str, *, project: int | None = None, limit: int = 20) -> list[Memory]:
    """Return at most `limit` memories for a picker: the one of that id, or text matches.

    An id ("12" or "#12") is a display id: the upstream id of a synced memory, else ours.
    """
    memories = Memory.objects.select_related("project").order_by("-updated_at", "-id")
    if project is not None:
        memories = memories.filter(project_id=project)
    wanted = term.strip().removeprefix("#")
    if wanted.isdigit():
        number = int(wanted)
        if number > MAX_ID:
            return []
        by_id = Q(upstream_id=number) | Q(upstream_id__isnull=True, pk=number)
        return list(memories.filter(by_id)[:limit])
    return list(memory_search(memories, term)[:limit])


def memories_by_ids(ids: Iterable[int]) -> list[Memory]:
    """Return the memories with these ids as they are now, with their project, by id."""
    return list(Memory.objects.select_related("project").filter(pk__in=ids).order_by("pk"))


def memories_version(memories: Iterable[Memory]) -> str:
    """Return the version of the memories a page lists (a merge's sources, a group): a digest
    of each one's id and `updated_at`, so any save of one of them moves it."""
    rows = sorted((memory.pk, memory.updated_at) for memory in memories)
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:32]


MERGE_ACTION = "merged"  # the audit action of a merge, recorded on its result


def merge_event(result: Memory) -> AuditEvent | None:
    """Return the audit event of the merge that made `result`, or None."""
    return (
        AuditEvent.objects.filter(
            action=MERGE_ACTION, object_type="memory", object_id=str(result.pk)
        )
        .order_by("-created_at", "-id")
        .first()
    )
