"""Which headers are stale, as ids: the query, and the set a process keeps for the navigation.

Every page's navigation shows how many headers are stale. Counting them walks every
composite (110 to 165 ms at 10,000 composites), and every write moved the count's key, so
every write made the next page pay it. So a process keeps the set of stale header ids under
the store's markers (`composites.store_markers`: the store version, the newest audit event
and the newest history versions of memories, composites and members) and, when they moved
by a few writes, works out which headers those writes can have touched and checks only
those again:

- the memories with a newer version that head a composite (an edited header), and the
  heads of the composites they are members of (an edited detail);
- the composites with a newer version (made, retitled, repointed, deleted), with every
  head they ever had, and the composites whose members have a newer version (joined, left,
  moved, deleted with their memory), with their heads;
- the memories and composites named by the audit events since the last one (a header
  marked synced, and any audited write whose version id is below one already seen).

A header's staleness depends on nothing else (its status, sync and creation, its
composites' stamps and members, its deleted composites' history rows), so the patched set
is the set counted afresh. Past PATCH_LIMIT new versions and events (a sync's bulk rows),
or when a marker went back (a rolled-back or undone write), the set is counted whole.
"""

from django.db.models import (
    BigIntegerField,
    Case,
    Exists,
    F,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.store_markers import Markers, store_markers
from memadmin.core.process_cache import Kept, ProcessCache
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .stale_membership import MEMBERS_CHANGED, deleted_composites, with_membership_stamps

PATCH_LIMIT = 1000  # new versions and events looked through; beyond that, count whole
HEADS_LIMIT = 2000  # headers checked again one by one; beyond that, count whole
MEMORY_COMPOSITE = ("memory", "composite")  # the audit events' object types read here


def first_made(head: str) -> Subquery:
    """Return the earliest `made_at` of the composites headed by the memory at `head`."""
    made = Composite.objects.filter(head=OuterRef(head)).order_by("made_at").values("made_at")
    return Subquery(made[:1], output_field=IntegerField())


def since(head: str) -> Coalesce:
    """Return the time a header's details are compared with: its sync, else its first making.

    `head` is the path to the header from the rows filtered ("head", "composite__head").
    """
    return Coalesce(
        F(f"{head}__header_sync__synced_at"),
        first_made(head),
        F(f"{head}__created_at"),
        output_field=IntegerField(),
    )


def stale_head_ids(project: Project | None = None, heads=None) -> QuerySet:
    """Return the stale headers' ids as one query (duplicates removed by its UNION).

    It walks the composites, not the members: per composite it checks the membership stamp,
    then looks for one changed detail (stopping at the first) through the index on
    (composite, member), and it adds the heads of composites deleted since the sync.
    `heads` (ids, or a query of them) limits it to those memories.
    """
    stale, deleted = _stale_parts(project, heads)
    # A union takes the first model's default ordering, which names columns it lacks.
    return (
        stale.values_list("head_id", flat=True)
        .union(deleted.values_list("head_id", flat=True))
        .order_by()
    )


def _stale_parts(project: Project | None, heads) -> tuple[QuerySet, QuerySet]:
    """Return the live composites and the deletions that make their heads stale."""
    changed_detail = CompositeMember.objects.filter(
        composite=OuterRef("pk"), member__updated_at__gt=OuterRef("since")
    )
    stale = with_membership_stamps(Composite.objects.all(), project)
    deleted = deleted_composites(project)
    if heads is not None:
        stale, deleted = stale.filter(head_id__in=heads), deleted.filter(head_id__in=heads)
    stale = stale.alias(since=since("head")).filter(MEMBERS_CHANGED | Exists(changed_detail))
    return stale.order_by(), deleted.order_by()


# One set for the whole store, under the markers it was counted at.
stale_head_sets: ProcessCache[frozenset[int]] = ProcessCache("stale header ids", limit=1)


def kept_stale_heads() -> frozenset[int]:
    """Return the ids of every stale header: one query while nothing was written.

    After a few writes, two: the markers, and the headers they can have touched with those
    of them stale now. After a larger write (a sync), the markers and a whole count.
    """
    markers = store_markers()

    def make(kept: Kept[frozenset[int]] | None) -> frozenset[int]:
        heads = None
        if kept is not None and _patchable(kept.version, markers):
            heads = _patched(kept.value, kept.version)
        return frozenset(stale_head_ids()) if heads is None else heads

    return stale_head_sets.get("store", markers, make)


def _patchable(before: Markers, now: Markers) -> bool:
    """Return True when the store only moved forward, by a few versions and events."""
    steps = [after - earlier for earlier, after in zip(before[1:], now[1:], strict=True)]
    return now[0] >= before[0] and min(steps) >= 0 and sum(steps) <= PATCH_LIMIT


def _patched(stale: frozenset[int], before: Markers) -> frozenset[int] | None:
    """Return the stale set with the headers written since `before` checked again (one query).

    Each row is a header the writes can have touched (flag 0) or one of those that is stale
    now (flag 1). None when too many headers were touched to keep patching.
    """
    parts = _touched_parts(before)
    touched = _union([rows.values_list(column, flat=True) for rows, column in parts])
    again = [(rows, "head_id") for rows in _stale_parts(None, touched)]
    flagged = [rows.annotate(flag=Value(0)).values_list(column, "flag") for rows, column in parts]
    flagged += [rows.annotate(flag=Value(1)).values_list(column, "flag") for rows, column in again]
    found = list(_union(flagged))
    if len(found) > HEADS_LIMIT:
        return None
    touched_ids = {head for head, _ in found if head is not None}
    stale_now = {head for head, flag in found if flag}
    return frozenset((stale - touched_ids) | stale_now)


def _union(parts: list[QuerySet]) -> QuerySet:
    first, *rest = [part.order_by() for part in parts]
    return first.union(*rest).order_by()


def _touched_parts(before: Markers) -> list[tuple[QuerySet, str]]:
    """Return the rows naming every header the writes after `before` can have touched.

    The memories and composites named by the new audit events count as well as those with
    newer versions: on PostgreSQL a write can take a version id below one already seen and
    commit after it, but its event comes after the store version it waited for.
    """
    _, last_event, memory_version, composite_version, member_version = before
    # Found by their ids alone (not by the index on the object's type and id, which would
    # walk every memory's events): each names a memory, a composite, or nothing here (NULL).
    events = AuditEvent.objects.filter(id__gt=last_event)
    named = {
        kind: events.annotate(
            named=Case(
                When(object_type=kind, then=Cast("object_id", BigIntegerField())),
                default=None,
                output_field=BigIntegerField(),
            )
        )
        for kind in MEMORY_COMPOSITE
    }
    edited = Memory.history.filter(history_id__gt=memory_version).values("id")
    written = Composite.history.filter(history_id__gt=composite_version).values("id")
    moved = CompositeMember.history.filter(history_id__gt=member_version).values("id")
    in_moved = CompositeMember.history.filter(id__in=moved).values("composite_id")
    heads = Exists(Composite.objects.filter(head=OuterRef("id")))
    return [
        # A memory heading nothing now is no header (one that stopped is in `written`).
        (Memory.history.filter(history_id__gt=memory_version).filter(heads), "id"),
        (named["memory"], "named"),  # a header edited, or marked synced
        (Composite.objects.filter(members__member__in=edited), "head_id"),
        (Composite.objects.filter(members__member__in=named["memory"].values("named")), "head_id"),
        (Composite.history.filter(id__in=written), "head_id"),
        (Composite.history.filter(id__in=named["composite"].values("named")), "head_id"),
        (Composite.objects.filter(pk__in=in_moved), "head_id"),
    ]
