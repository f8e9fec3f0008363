"""Resolve a sync conflict: keep the store's version, memadmin's, or a merged text.

A conflict (`SyncConflict`) is a memory both sides changed since their base. Resolving it
writes the chosen version to both: to the store first, checked against the store's row
as the conflict recorded it (a row the agent changed again is refused: sync again to see
it), then to memadmin, with a history version and a `conflict_resolved` audit event, and
the base moved to the chosen version. All in one transaction; nothing is written on
either side when one refuses.
"""

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb import writing as store_writing
from memadmin.core.contextdb.writing import CURATED_COLUMNS, curated_digest
from memadmin.core.hashing import normalized_hash
from memadmin.memories.models import Memory
from memadmin.memories.services import CONTENT_MAX_CHARS, DuplicateMemory

from ..models import SyncConflict
from ..write_through.store_values import bases_record, memory_curated
from ..write_through.store_writes import store_timeout, store_uuid_of

KEEP_STORE, KEEP_MEMADMIN, KEEP_MERGED = "store", "memadmin", "merged"
MERGED_TEXT_MISSING = "Write the merged text."
CHOICES = {
    KEEP_STORE: "keep the store's version",
    KEEP_MEMADMIN: "keep memadmin's version",
    KEEP_MERGED: "save a merged text",
}
_ATTRIBUTES = [name for name in CURATED_COLUMNS if name != "project_path"]


@transaction.atomic
def conflict_resolve(
    *, conflict: SyncConflict, keep: str, actor, content: str = "", reason: str = ""
) -> Memory:
    """Put the chosen version in force on both sides and drop the conflict; return the memory.

    ``keep`` is "store", "memadmin" or "merged" (memadmin's version with ``content`` as its
    text). Refused with nothing written: an unknown choice, an empty or over-long merged
    text, a text another memory of the category has, a store that changed again or cannot
    be written.
    """
    if keep not in CHOICES:
        raise ValidationError({"keep": f"Choose one of: {', '.join(CHOICES)}."})
    # The memory first, then the conflict, in the order a sync's last transaction takes them
    # (`writing/lock.writers_held`, then the conflicts it records): the other order deadlocked
    # with it on PostgreSQL.
    memory = (
        Memory.objects.select_for_update(of=("self",))
        .select_related("project")
        .get(pk=conflict.memory_id)
    )
    try:
        conflict = (
            SyncConflict.objects.select_for_update().select_related("store").get(pk=conflict.pk)
        )
    except SyncConflict.DoesNotExist:
        raise ValidationError(
            "A sync settled this conflict meanwhile (both sides agree now, or the memory "
            "moved again); nothing was written. Open the memory to see it as it is.",
            code="store_changed",
        ) from None
    identity = memory.project.identity
    theirs = {name: conflict.store_values.get(name) for name in CURATED_COLUMNS}
    chosen = _chosen(memory, identity, theirs, keep, content)
    _refuse_duplicate(memory, chosen)
    before = memory_curated(memory, identity)
    now = now_ms()
    for name in _ATTRIBUTES:
        setattr(memory, name, chosen[name])
    memory.shareable = bool(chosen["shareable"])
    if memory.content != before["content"]:
        memory.normalized_hash = normalized_hash(memory.content)
        memory.classified_at = None
    memory.updated_at = max(now, memory.updated_at + 1)
    why = reason or f"sync conflict resolved: {CHOICES[keep]}"
    # Written even when the store's version is kept, so both sides agree on the time too.
    _store_write(conflict, memory, theirs, chosen, now, why)
    with acting(actor=actor, reason=why):
        memory.save()
        audit_record(
            action="conflict_resolved",
            target=memory,
            project=memory.project,
            category=memory.category,
            changes={
                "keep": keep,
                "content": [before["content"], memory.content],
                "store_content": theirs["content"],
            },
        )
    bases_record({memory.pk: curated_digest(chosen)})
    conflict.delete()
    return memory


def _chosen(memory: Memory, identity: str, theirs: dict, keep: str, content: str) -> dict:
    if keep == KEEP_STORE:
        return dict(theirs)
    chosen = memory_curated(memory, identity)
    if keep == KEEP_MERGED:
        if not content or not content.strip():
            raise ValidationError({"content": MERGED_TEXT_MISSING})
        if len(content) > CONTENT_MAX_CHARS:
            raise ValidationError(
                {"content": f"A memory holds at most {CONTENT_MAX_CHARS} characters."}
            )
        chosen["content"] = content
    return chosen


def _refuse_duplicate(memory: Memory, chosen: dict) -> None:
    other = (
        Memory.objects.filter(
            project=memory.project,
            category=chosen["category"],
            normalized_hash=normalized_hash(chosen["content"]),
        )
        .exclude(pk=memory.pk)
        .first()
    )
    if other is not None:
        raise DuplicateMemory(other)


def _store_write(
    conflict: SyncConflict, memory: Memory, theirs: dict, chosen: dict, now: int, reason: str
):
    """Write the chosen version over the store's row as the conflict recorded it."""
    sets = {name: chosen[name] for name in _ATTRIBUTES if chosen[name] != theirs[name]}
    sets["updated_at"] = memory.updated_at
    try:
        with store_writing.store_transaction(
            conflict.store.path,
            store_uuid=store_uuid_of(conflict.store),
            timeout=store_timeout(),
            now=now,
        ) as tx:
            tx.update(
                conflict.store_values["id"], sets, expected=curated_digest(theirs), reason=reason
            )
    except store_writing.RowChanged as error:
        raise ValidationError(
            "The agent changed this memory in the store again since the conflict was found; "
            "sync again to see its newest version. Nothing was saved.",
            code="store_changed",
        ) from error
    except store_writing.StoreBusy as error:
        raise ValidationError(
            "The agent is writing to the store; try again. Nothing was saved.", code="store_busy"
        ) from error
    except StoreError as error:
        raise ValidationError(
            f"The store refused the resolution: {error}. Nothing was saved.", code="store"
        ) from error
