"""Settle a sync's three-way state in its last transaction: pushed rows, bases and conflicts.

`writer.sync_write` calls `sync_settle` once, after the changed and gone rows are written and
audited: memadmin's rows the pushes wrote to the store (`pushes.store_push`) are saved as the
store now holds them, every row the sync read or pushed gets its new base (`StoreBase`), the
conflicts found are recorded (`SyncConflict`) and those that no longer are dropped.
"""

from collections.abc import Mapping

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.contextdb.idset import IdMap

from ..models import StoreBase, SyncConflict, UpstreamStore
from ..planning.plan import SyncPlan, values_curated
from ..write_through.store_values import memory_digest
from .bulk_rows import rows_insert, rows_update
from .pushes import Pushed

PUSH_REASON = "pushed to the store (context.db sync)"


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
