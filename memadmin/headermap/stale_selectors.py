"""Read which headers are stale: their details changed after the header was last synced.

A header is a live memory heading at least one composite; its details are the members of
those composites. It was last synced at `HeaderSync.synced_at`, or, never synced, when its
first composite was made (the earliest `made_at`: the details it was made over, however old,
are where a header starts). It is stale when, since then:

- a detail changed: its `updated_at` is later. What changed is read from the details'
  simple-history versions, whose `updated_at` is on the same clock;
- the set of details changed: a memory joined or left one of its composites, members were
  reordered, a composite of it was made or deleted (`stale_membership` says how each is
  read; a composite made with the header does not count).
"""

import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass, field, replace

from django.core.cache import cache
from django.db import connection
from django.db.models import F, IntegerField, QuerySet
from django.db.models.functions import Coalesce

from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.worddiff import DiffOp, word_diff
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .models import HeaderSync
from .stale_count import first_made, kept_stale_heads, since, stale_head_ids
from .stale_membership import (
    LIVE,
    MembershipChange,
    changed_composites,
    membership_change,
    membership_events,
)

COMPARED_FIELDS = ("category", "status", "importance")
IDS_CACHE_KEY = "memadmin:stale-header-ids"
ORDER_CACHE_KEY = "memadmin:stale-header-order"


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
    """A stale header, the time it counts from, and what changed in its details since.

    `changes` are the details whose own text or fields changed; `membership` the changes
    to the set of details, oldest first.
    """

    header: Memory
    since: int
    synced: bool
    changes: list[DetailChange] = field(default_factory=list)
    membership: list[MembershipChange] = field(default_factory=list)

    @property
    def version(self) -> str:
        """Return a digest of what the queue shows of this header, for "mark synced" to carry.

        It covers the header's own version, the sync it counts from, each changed detail
        with its version and each change to the set of details: any further change moves
        it, so a reviewer never marks synced a change they were not shown.
        """
        shown = [
            self.header.pk,
            self.header.updated_at,
            self.since,
            sorted((change.detail.pk, change.detail.updated_at) for change in self.changes),
            [(change.kind, change.composite_pk, change.at) for change in self.membership],
        ]
        return hashlib.sha256(json.dumps(shown).encode()).hexdigest()[:32]


def _stale_members(project: Project | None = None) -> QuerySet[CompositeMember]:
    """Return the membership rows whose memory changed after its header's sync."""
    members = CompositeMember.objects.filter(composite__head__status__in=LIVE).alias(
        since=since("composite__head")
    )
    if project is not None:
        members = members.filter(composite__project=project)
    return members.filter(member__updated_at__gt=F("since")).order_by()


def count_stale_headers() -> int:
    """Return how many headers are stale, across every project, counted afresh (one query)."""
    return stale_head_ids().count()


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

    One query while nothing changed; after a few writes, three, whatever the store's size:
    the process keeps the stale headers and checks again only those the writes touched
    (`stale_count.kept_stale_heads`).
    """
    return len(kept_stale_heads())


def stale_header_ids(project: Project | None = None) -> list[int]:
    """Return the primary keys of the stale headers, in ascending order.

    One cheap query while nothing changed (kept in the cache with the store's fingerprint,
    as `stale_header_count` is); one more when it moved.
    """
    fingerprint = store_fingerprint()
    key = f"{IDS_CACHE_KEY}:{project.pk if project is not None else 'all'}"
    cached = cache.get(key)
    if cached is not None and cached[0] == fingerprint:
        return cached[1]
    ids = sorted(stale_head_ids(project))
    cache.set(key, (fingerprint, ids), timeout=None)
    return ids


def stale_order(project: Project | None = None) -> list[int]:
    """Return the stale headers' ids, oldest sync first (then by id).

    Kept in the cache with the store's fingerprint, as the ids are: one query while
    nothing changed, three when it moved.
    """
    fingerprint = store_fingerprint()
    key = f"{ORDER_CACHE_KEY}:{project.pk if project is not None else 'all'}"
    cached = cache.get(key)
    if cached is not None and cached[0] == fingerprint:
        return cached[1]
    ids = stale_header_ids(project)
    since = dict(
        Memory.objects.filter(pk__in=ids)
        .annotate(since=_since_of_row())
        .values_list("pk", "since")
        .iterator(chunk_size=2000)
    )
    order = sorted(since, key=lambda pk: (since[pk], pk))
    cache.set(key, (fingerprint, order), timeout=None)
    return order


def _since_of_row() -> Coalesce:
    return Coalesce(
        F("header_sync__synced_at"),
        first_made("pk"),
        F("created_at"),
        output_field=IntegerField(),
    )


def stale_headers(
    project: Project | None = None, heads: Collection[int] | None = None
) -> list[StaleHeader]:
    """Return the stale headers, oldest sync first, each with what changed in its details.

    `heads` limits them to those ids (a page of the queue). At most seven queries whatever
    the number of headers: changed details, composites whose members changed, deleted
    composites, their audit events, headers, details, and the details' versions.
    """
    members = _stale_members(project)
    if heads is not None:
        members = members.filter(composite__head_id__in=heads)
    pairs = set(members.values_list("composite__head_id", "member_id"))
    composites = changed_composites(project, heads)
    events = membership_events(composites)
    heads = {head for head, _ in pairs} | {composite.head_id for composite in composites}
    if not heads:
        return []
    headers = (
        Memory.objects.select_related("project", "header_sync")
        .annotate(first_made=first_made("pk"))
        .in_bulk(heads)
    )
    changed = {detail for _, detail in pairs}
    named = {pk for _, event in events for pk in event["members"]}
    details = Memory.objects.in_bulk(changed | named)
    versions = _versions_of(sorted(changed))
    stale = {
        head: StaleHeader(header=header, since=_since_of(header), synced=_has_sync(header))
        for head, header in headers.items()
    }
    for head, detail in sorted(pairs):
        entry = stale[head]
        entry.changes.append(_change(details[detail], entry.since, versions.get(detail, [])))
    for head, event in sorted(events, key=lambda pair: pair[1]["at"]):
        _add_membership(stale[head].membership, membership_change(event, details))
    return sorted(stale.values(), key=lambda entry: (entry.since, entry.header.pk))


def _add_membership(changes: list[MembershipChange], change: MembershipChange) -> None:
    """Append a change; a move repeating the one before it replaces it, counted."""
    if changes and change.repeats(changes[-1]):
        change = replace(change, times=changes[-1].times + 1)
        changes.pop()
    changes.append(change)


def stale_header(header: Memory) -> StaleHeader | None:
    """Return the header's entry in the queue as it is now, or None when it is not stale."""
    entries = stale_headers(header.project, heads=[header.pk])
    return next((entry for entry in entries if entry.header.pk == header.pk), None)


def _since_of(header: Memory) -> int:
    """Return the header's sync, else its first composite's making (annotated `first_made`)."""
    if _has_sync(header):
        return header.header_sync.synced_at
    first_made = getattr(header, "first_made", None)
    return header.created_at if first_made is None else first_made


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
