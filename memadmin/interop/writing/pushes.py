"""The sync's three-way steps: the bases it reads, the pushes it writes, the conflicts it keeps.

`writing.services` calls three functions, each one step of its run:

1. `plan_bases` gives the planner each memory's base (`StoreBase.digest`);
2. `store_push` writes the plan's pushes to the store (an edit memadmin kept while the
   store was out of reach, a memory created then), each row in its own checked
   transaction (`memadmin.core.contextdb.writing`), before memadmin's transaction commits:
   a row the agent changed meanwhile is left for the next sync, never overwritten;
3. `sync_settle`, after the rows are written, brings memadmin's pushed rows in line with
   what the store now holds, records the bases and the conflicts (`SyncConflict`), and
   drops the conflicts that no longer are.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.contextdb import RowProblem, StoreError
from memadmin.core.contextdb import writing as store_writing
from memadmin.core.contextdb.idset import IdMap
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from ..models import PendingCriteria, StoreBase, SyncConflict, UpstreamStore
from ..planning.plan import SyncPlan, values_curated, values_digest
from ..planning.values import FIELDS
from ..write_through.criteria_services import criteria_entries
from ..write_through.store_values import memory_curated, memory_digest, memory_insert_values
from ..write_through.store_writes import store_timeout, store_uuid_of
from .bulk_rows import rows_insert, rows_update

PUSH_REASON = "pushed to the store (context.db sync)"
_COUNTERS = ("seen_count", "retrieval_count", "last_seen_at", "last_retrieved_at", "verified_at")


@dataclass
class Pushed:
    """What the pushes did: memadmin's row of each pushed memory, by primary key."""

    memories: dict[int, Memory] = field(default_factory=dict)
    warnings: list[RowProblem] = field(default_factory=list)


def plan_bases(projects: Iterable[Project]) -> dict[int, str]:
    """Return the base digest of every memory of the projects that has one."""
    return dict(
        StoreBase.objects.filter(memory__project__in=list(projects))
        .order_by()
        .values_list("memory_id", "digest")
    )


def store_push(plan: SyncPlan, *, store: UpstreamStore, path, now: int) -> Pushed:
    """Write each of the plan's pushes to the store; a refused one becomes a warning.

    Criteria changed on a server without the file go too (`criteria_push`).
    """
    pushed = Pushed()
    if plan.pull_only:
        return pushed
    criteria_push(store=store, path=path, now=now, warnings=pushed.warnings)
    if not plan.pushes:
        return pushed
    memories = Memory.objects.select_related("project").in_bulk(d.pk for d in plan.pushes)
    upstream_of = dict(
        Memory.objects.filter(
            project__in={m.project_id for m in memories.values()}, upstream_id__isnull=False
        ).values_list("pk", "upstream_id")
    )
    for divergence in plan.pushes:
        memory = memories[divergence.pk]
        identity = memory.project.identity
        try:
            with store_writing.store_transaction(
                path, store_uuid=store_uuid_of(store), timeout=store_timeout(), now=now
            ) as tx:
                if divergence.upstream_id is None:
                    memory.upstream_id = tx.insert(
                        memory_insert_values(memory, identity, upstream_of)
                    )
                else:
                    theirs = values_curated(divergence.store)
                    mine = memory_curated(memory, identity)
                    sets = {name: value for name, value in mine.items() if theirs[name] != value}
                    sets.pop("project_path", None)
                    sets["updated_at"] = memory.updated_at
                    tx.update(
                        divergence.upstream_id, sets, expected=values_digest(divergence.store)
                    )
                    _take_counters(memory, divergence.store)
        except StoreError as error:
            pushed.warnings.append(
                RowProblem("memories", divergence.upstream_id, "push", f"not pushed: {error}")
            )
            continue
        pushed.memories[memory.pk] = memory
    return pushed


def criteria_push(*, store: UpstreamStore, path, now: int, warnings: list) -> None:
    """Write the criteria keys of the store's projects marked pending, and drop the marks."""
    for pending in PendingCriteria.objects.filter(
        project__upstream_link__store=store
    ).select_related("project__pack"):
        try:
            with store_writing.store_transaction(
                path, store_uuid=store_uuid_of(store), timeout=store_timeout(), now=now
            ) as tx:
                tx.set_meta(criteria_entries(pending.project))
        except StoreError as error:
            warnings.append(
                RowProblem("context_store_meta", None, "criteria", f"not pushed: {error}")
            )
            continue
        pending.delete()


def _take_counters(memory: Memory, store_values: tuple) -> None:
    """Set the counters the agent keeps (seen, retrieved) from the store's row."""
    for name in _COUNTERS:
        setattr(memory, name, store_values[1 + FIELDS.index(name)])


def sync_settle(
    plan: SyncPlan,
    *,
    store: UpstreamStore,
    known: dict[int, str],
    pk_of_upstream: Mapping[int, int] | IdMap,
    pushed: Pushed,
    actor,
    now: int,
) -> None:
    """Save the pushed rows, record every new base and the conflicts; drop resolved ones.

    ``known`` holds the bases the plan was made with, by primary key.
    """
    with acting(actor=actor, reason=PUSH_REASON):
        for memory in pushed.memories.values():
            memory.save()
            audit_record(
                action="pushed_to_store",
                target=memory,
                project=memory.project,
                category=memory.category,
                changes={"upstream_id": memory.upstream_id},
            )
    digests = {pk_of_upstream[upstream]: digest for upstream, digest in plan.bases.items()}
    for memory in pushed.memories.values():
        digests[memory.pk] = memory_digest(memory, memory.project.identity)
    _bases_write(digests, known, now)
    conflicting = {d.pk for d in plan.conflicts}
    existing = {c.memory_id: c for c in SyncConflict.objects.filter(store=store)}
    SyncConflict.objects.filter(
        pk__in=[c.pk for pk, c in existing.items() if pk in digests and pk not in conflicting]
    ).delete()
    found = [
        SyncConflict(
            pk=existing[d.pk].pk if d.pk in existing else None,
            memory_id=d.pk,
            store=store,
            store_values={**values_curated(d.store), "id": d.upstream_id},
            memadmin_values=values_curated(d.memadmin),
            found_at=existing[d.pk].found_at if d.pk in existing else now,
        )
        for d in plan.conflicts
    ]
    # A conflict found again keeps its date and shows both sides as they are now.
    SyncConflict.objects.bulk_create([c for c in found if c.pk is None])
    SyncConflict.objects.bulk_update(
        [c for c in found if c.pk is not None], ["store_values", "memadmin_values"]
    )


def _bases_write(digests: dict[int, str], known: dict[int, str], now: int) -> None:
    """Write the bases on the sync's bulk paths: inserts for new ones, updates for the rest."""
    new = [
        {"memory_id": pk, "digest": digest, "read_at": now, "pending_since": None}
        for pk, digest in digests.items()
        if pk not in known
    ]
    changed = [
        {"memory_id": pk, "digest": digest, "read_at": now, "pending_since": None}
        for pk, digest in digests.items()
        if pk in known
    ]
    rows_insert(StoreBase, new)
    rows_update(StoreBase, changed, ["digest", "read_at", "pending_since"])
