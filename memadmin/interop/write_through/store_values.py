"""Memadmin's memories as the store's columns, and the base memadmin keeps of each.

One home for the translation both directions use: the write-through gateway
(`write_through.store_writes`), the sync's three-way plan (`planning.plan`) and the conflicts page compare
rows by `curated_digest` of the same curated values, whichever side they come from.
"""

from collections.abc import Iterable, Mapping

from memadmin.core.clock import now_ms
from memadmin.core.contextdb.writing import CURATED_COLUMNS, curated_digest
from memadmin.memories.models import Memory

from ..models import StoreBase

# Where each curated column sits in a sync plan's values tuple (project first, then FIELDS).
_MEMORY_ATTRIBUTES = {
    "category": "category",
    "content": "content",
    "importance": "importance",
    "scope": "scope",
    "shareable": "shareable",
    "status": "status",
    "expires_at": "expires_at",
    "metadata": "metadata",
}


def memory_curated(memory: Memory, identity: str) -> dict:
    """Return a memory's curated values as the store holds them."""
    values = {"project_path": identity}
    for column, attribute in _MEMORY_ATTRIBUTES.items():
        values[column] = getattr(memory, attribute)
    values["shareable"] = int(bool(values["shareable"]))
    values["metadata"] = dict(values["metadata"] or {})
    return values


def memory_digest(memory: Memory, identity: str) -> str:
    """Return the digest of a memory's curated values."""
    return curated_digest(memory_curated(memory, identity))


def store_curated(row: Mapping) -> dict:
    """Return the curated values of a store row (as `writing.row_values` gives it)."""
    return {name: row.get(name) for name in CURATED_COLUMNS}


def memory_insert_values(memory: Memory, identity: str, upstream_of: Mapping[int, int]) -> dict:
    """Return the columns a new store row for ``memory`` takes (references as upstream ids)."""
    values = memory_curated(memory, identity)
    values.update(
        source_session_id=memory.source_session_id or None,
        source_type=Memory.SourceType.USER,
        seen_count=memory.seen_count,
        retrieval_count=memory.retrieval_count,
        first_seen_at=memory.first_seen_at,
        created_at=memory.created_at,
        updated_at=memory.updated_at,
        last_seen_at=memory.last_seen_at,
        last_retrieved_at=memory.last_retrieved_at,
        verification_status=memory.verification_status,
        verified_at=memory.verified_at,
        classified_at=memory.classified_at,
        merged_from=sorted(upstream_of[pk] for pk in memory.merged_from or () if pk in upstream_of)
        or None,
    )
    return values


def bases_of(memory_ids: Iterable[int]) -> dict[int, StoreBase]:
    """Return the bases of the memories that have one, by memory id."""
    return {base.memory_id: base for base in StoreBase.objects.filter(memory_id__in=memory_ids)}


def bases_record(digests: Mapping[int, str], *, pending: bool = False) -> None:
    """Record each memory's base digest (the store's row now); ``pending`` marks changes held.

    A memory recorded as pending keeps the base it had (the store has not changed) and is
    marked from now, unless it was already pending; one without a base takes the given
    digest as its base (the row before the change, "" for a memory the store lacks).
    """
    if not digests:
        return
    now = now_ms()
    existing = bases_of(digests)
    new, changed = [], []
    for memory_id, digest in digests.items():
        base = existing.get(memory_id)
        if base is None:
            new.append(
                StoreBase(
                    memory_id=memory_id,
                    digest=digest,
                    read_at=now,
                    pending_since=now if pending else None,
                )
            )
            continue
        if pending:
            if base.pending_since is None:
                base.pending_since = now
                changed.append(base)
            continue
        if base.digest != digest or base.pending_since is not None:
            base.digest, base.read_at, base.pending_since = digest, now, None
            changed.append(base)
    StoreBase.objects.bulk_create(new, batch_size=2000)
    StoreBase.objects.bulk_update(changed, ["digest", "read_at", "pending_since"], batch_size=500)
