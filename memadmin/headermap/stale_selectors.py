"""Read which headers are stale: a detail changed after the header was last synced.

A header is a live memory heading at least one composite; its details are the members of
those composites. It was last synced at `HeaderSync.synced_at`, or, never synced, when it
was created. A detail whose `updated_at` is later than that makes it stale. What changed
is read from the details' simple-history versions, whose `updated_at` is on the same clock.
"""

from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import connection
from django.db.models import F, IntegerField, QuerySet
from django.db.models.functions import Coalesce

from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.worddiff import DiffOp, word_diff
from memadmin.memories.models import Memory, Project

from .models import HeaderSync

LIVE = (Memory.Status.ACTIVE, Memory.Status.PERMANENT)
COMPARED_FIELDS = ("category", "status", "importance")
COUNT_CACHE_KEY = "memadmin:stale-header-count"


@dataclass(frozen=True, slots=True)
class DetailVersion:
    """One saved version of a detail since the header's sync: when, by whom, and why."""

    updated_at: int
    history_type: str
    actor: str
    reason: str


@dataclass(frozen=True, slots=True)
class DetailChange:
    """How a detail differs now from what it was when its header was last synced.

    `before` is None when the detail did not exist then. `diff` is the word diff of its
    text (empty when the text did not change); `fields` holds (name, then, now) for the
    other fields that changed.
    """

    detail: Memory
    before: str | None
    diff: list[DiffOp]
    fields: list[tuple[str, object, object]]
    versions: list[DetailVersion]

    @property
    def text_changed(self) -> bool:
        """Return True when the detail's text is not what it was."""
        return any(op.kind != "equal" for op in self.diff)


@dataclass(frozen=True, slots=True)
class StaleHeader:
    """A stale header, the time it counts from, and what changed in its details since."""

    header: Memory
    since: int
    synced: bool
    changes: list[DetailChange] = field(default_factory=list)


def _baseline() -> Coalesce:
    """Return the time a header's details are compared with: its sync, else its creation."""
    return Coalesce(
        F("composite__head__header_sync__synced_at"),
        F("composite__head__created_at"),
        output_field=IntegerField(),
    )


def _stale_members(project: Project | None = None) -> QuerySet[CompositeMember]:
    members = CompositeMember.objects.filter(composite__head__status__in=LIVE).alias(
        since=_baseline()
    )
    if project is not None:
        members = members.filter(composite__project=project)
    return members.filter(member__updated_at__gt=F("since"))


def count_stale_headers() -> int:
    """Return how many headers are stale, across every project (one query over every member)."""
    return _stale_members().values("composite__head_id").distinct().count()


def store_fingerprint() -> tuple:
    """Return a value that changes whenever anything staleness depends on changes (one query).

    Memories, composites and their members are audited models: every write adds a
    simple-history row, so the newest history id of each moves on every change (a
    QuerySet.update() outside a service is not allowed on them). Syncs are counted and
    summed. Each part reads one end of a primary-key index, or the small HeaderSync table.
    """
    quote = connection.ops.quote_name
    parts = [
        f"(SELECT MAX(history_id) FROM {quote(model.history.model._meta.db_table)})"
        for model in (Memory, Composite, CompositeMember)
    ]
    syncs = quote(HeaderSync._meta.db_table)
    parts.append(f"(SELECT COUNT(*) FROM {syncs})")
    parts.append(f"(SELECT SUM(synced_at) FROM {syncs})")
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(parts))
        return tuple(cursor.fetchone())


def stale_header_count() -> int:
    """Return how many headers are stale, across every project, for the navigation.

    One cheap query while nothing changed: the count is kept in the cache with the store's
    fingerprint, and counted again (one more query) only when the fingerprint moved.
    """
    fingerprint = store_fingerprint()
    cached = cache.get(COUNT_CACHE_KEY)
    if cached is not None and cached[0] == fingerprint:
        return cached[1]
    count = count_stale_headers()
    cache.set(COUNT_CACHE_KEY, (fingerprint, count), timeout=None)
    return count


def stale_header_ids(project: Project | None = None) -> list[int]:
    """Return the primary keys of the stale headers, in one query."""
    heads = _stale_members(project).values_list("composite__head_id", flat=True).distinct()
    return sorted(heads)


def stale_headers(project: Project | None = None) -> list[StaleHeader]:
    """Return the stale headers, oldest sync first, each with its changed details.

    Four queries whatever the number of headers: changed memberships, headers, details,
    and the details' versions.
    """
    pairs = list(
        _stale_members(project)
        .annotate(since_ms=_baseline())
        .values_list("composite__head_id", "member_id", "since_ms")
        .distinct()
    )
    if not pairs:
        return []
    headers = Memory.objects.select_related("project", "header_sync").in_bulk(
        {head for head, _, _ in pairs}
    )
    details = Memory.objects.in_bulk({detail for _, detail, _ in pairs})
    versions = _versions_of(list(details))
    stale: dict[int, StaleHeader] = {}
    for head, detail, since in sorted(pairs):
        header = headers[head]
        entry = stale.setdefault(
            head, StaleHeader(header=header, since=since, synced=_has_sync(header))
        )
        if all(change.detail.pk != detail for change in entry.changes):
            entry.changes.append(_change(details[detail], since, versions.get(detail, [])))
    return sorted(stale.values(), key=lambda entry: (entry.since, entry.header.pk))


def _has_sync(header: Memory) -> bool:
    try:
        header.header_sync  # noqa: B018 -- reading it tells whether the row exists
    except Memory.header_sync.RelatedObjectDoesNotExist:
        return False
    return True


def _versions_of(detail_ids: list[int]) -> dict[int, list]:
    """Return each detail's versions, oldest first, in one query."""
    rows = (
        Memory.history.filter(id__in=detail_ids)
        .order_by("id", "history_date", "history_id")
        .values(
            "id",
            "content",
            "updated_at",
            "history_type",
            "history_actor",
            "history_change_reason",
            *COMPARED_FIELDS,
        )
    )
    versions: dict[int, list] = {}
    for row in rows:
        versions.setdefault(row["id"], []).append(row)
    return versions


HISTORY_TYPES = {"+": "created", "~": "changed", "-": "deleted"}


def _change(detail: Memory, since: int, versions: list[dict]) -> DetailChange:
    before = None
    later = []
    for version in versions:
        if version["updated_at"] <= since:
            before = version
        else:
            later.append(version)
    fields = [
        (name, before[name], getattr(detail, name))
        for name in COMPARED_FIELDS
        if before is not None and before[name] != getattr(detail, name)
    ]
    return DetailChange(
        detail=detail,
        before=None if before is None else before["content"],
        diff=word_diff(before["content"], detail.content) if before is not None else [],
        fields=fields,
        versions=[
            DetailVersion(
                updated_at=version["updated_at"],
                history_type=HISTORY_TYPES.get(version["history_type"], version["history_type"]),
                actor=version["history_actor"] or "unknown",
                reason=version["history_change_reason"] or "",
            )
            for version in later
        ],
    )
