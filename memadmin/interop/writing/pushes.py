"""Write a sync's pushes to the store: memadmin's edits the store has not seen yet.

`writer.sync_write` calls `store_push` once, first of its steps: each of the plan's pushes
(an edit memadmin kept while the store was out of reach, a memory created then) is written
in its own checked transaction (`memadmin.core.contextdb.writing`), before memadmin's
transaction commits; a row the agent changed meanwhile is left for the next sync, never
overwritten. Criteria marked pending go with them (`criteria_push`). What the pushes did
(`Pushed`) is settled in memadmin in the writer's last transaction (`settle`).
"""

from dataclasses import dataclass, field

from memadmin.core.contextdb import RowProblem, StoreError
from memadmin.core.contextdb import writing as store_writing
from memadmin.memories.models import Memory

from ..models import PendingCriteria, UpstreamStore
from ..planning.plan import SyncPlan, values_curated, values_digest
from ..planning.values import FIELDS
from ..write_through.criteria_services import criteria_entries
from ..write_through.store_values import memory_curated, memory_insert_values
from ..write_through.store_writes import store_timeout, store_uuid_of

_COUNTERS = ("seen_count", "retrieval_count", "last_seen_at", "last_retrieved_at", "verified_at")


@dataclass
class Pushed:
    """What the pushes did: memadmin's row of each pushed memory, by primary key."""

    memories: dict[int, Memory] = field(default_factory=dict)
    warnings: list[RowProblem] = field(default_factory=list)


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
