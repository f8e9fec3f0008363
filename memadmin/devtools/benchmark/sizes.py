"""Sizes and digests kept by the database's triggers, beside the same kept by the writes.

`MemorySize` (a memory's heuristic tokens and content digest) is written by triggers on
`memories_memory` (`memadmin.memories.sizes`), with the sync's bulk inserts sized by one
set-based statement (`memadmin.memories.bulk_index`). The other way would compute both in
Python where each write is made and write the `MemorySize` row beside it. This times both
ways on the same rows of a scratch SQLite database, for the three shapes of write memadmin
makes: a person's save (one row, its own transaction), a sync's new rows (thousands in one
transaction) and a sync's changed rows (thousands of updates in one transaction).

The "by the writes" way is built here only to be timed: its triggers are dropped in the
scratch database, and each timed step writes its sizes the way a service would.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection, transaction

from memadmin.core.clock import now_ms
from memadmin.core.hashing import content_digest64, normalized_hash
from memadmin.memories.bulk_index import indexed_in_bulk
from memadmin.memories.models import Memory, MemorySize
from memadmin.memories.sizes import heuristic_tokens
from memadmin.projects.models import Project

SIZE_TRIGGERS = ("memories_memory_size_insert", "memories_memory_size_update")


@dataclass(frozen=True)
class Timing:
    shape: str
    rows: int
    by_triggers_ms: float
    by_writes_ms: float

    def line(self) -> str:
        ratio = self.by_writes_ms / self.by_triggers_ms if self.by_triggers_ms else 0.0
        return (
            f"  {self.shape:<38} {self.rows:>7,} rows   triggers {self.by_triggers_ms:8.0f} ms"
            f"   writes {self.by_writes_ms:8.0f} ms   ({ratio:.2f}x)"
        )


def _text(number: int, round_: int) -> str:
    return f"Memory {number}, version {round_}: deploy with `make release` after the review."


def _new_rows(project: Project, first: int, count: int) -> list[Memory]:
    stamp = now_ms()
    rows = []
    for number in range(first, first + count):
        content = _text(number, 0)
        rows.append(
            Memory(
                pk=number + 1,  # chosen before the insert, as a sync's are (upstream's ids)
                project=project,
                category="PROJECT_RULES",
                content=content,
                normalized_hash=normalized_hash(content),
                first_seen_at=stamp,
                created_at=stamp,
                updated_at=stamp,
                last_seen_at=stamp,
            )
        )
    return rows


def _sizes_of(memories) -> list[MemorySize]:
    return [
        MemorySize(
            memory_id=memory.pk,
            tokens=heuristic_tokens(memory.content),
            content_digest=content_digest64(memory.content),
        )
        for memory in memories
    ]


def _timed(step: Callable[[], None]) -> float:
    started = time.perf_counter()
    step()
    return (time.perf_counter() - started) * 1000


def _insert_by_triggers(project: Project, first: int, count: int) -> None:
    rows = _new_rows(project, first, count)
    # The sync's way: the insert triggers off for the block, then one statement sizes them.
    with transaction.atomic(), indexed_in_bulk([row.pk for row in rows]):
        Memory.objects.bulk_create(rows, batch_size=2000)


def _insert_by_writes(project: Project, first: int, count: int) -> None:
    with transaction.atomic():
        rows = Memory.objects.bulk_create(_new_rows(project, first, count), batch_size=2000)
        MemorySize.objects.bulk_create(_sizes_of(rows), batch_size=2000)


def _update_by_triggers(pks: list[int], round_: int, *, one_transaction: bool) -> None:
    def update(pk: int) -> None:
        Memory.objects.filter(pk=pk).update(content=_text(pk, round_))

    _updates(pks, update, one_transaction=one_transaction)


def _upsert_sizes(sizes: list[MemorySize]) -> None:
    MemorySize.objects.bulk_create(
        sizes,
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["memory"],
        update_fields=["tokens", "content_digest"],
    )


def _update_by_writes(pks: list[int], round_: int, *, one_transaction: bool) -> None:
    """Each update writes its size too: one upsert per save, one for a sync's whole batch."""
    if one_transaction:
        with transaction.atomic():
            changed = []
            for pk in pks:
                Memory.objects.filter(pk=pk).update(content=_text(pk, round_))
                changed.append(Memory(pk=pk, content=_text(pk, round_)))
            _upsert_sizes(_sizes_of(changed))
        return
    for pk in pks:
        with transaction.atomic():
            Memory.objects.filter(pk=pk).update(content=_text(pk, round_))
            _upsert_sizes(_sizes_of([Memory(pk=pk, content=_text(pk, round_))]))


def _updates(pks: list[int], update: Callable[[int], None], *, one_transaction: bool) -> None:
    if one_transaction:
        with transaction.atomic():
            for pk in pks:
                update(pk)
    else:
        for pk in pks:
            with transaction.atomic():
                update(pk)


def _drop_size_triggers() -> None:
    with connection.cursor() as cursor:
        for trigger in SIZE_TRIGGERS:
            cursor.execute(f"DROP TRIGGER IF EXISTS {trigger}")


def measure(*, saves: int, sync_rows: int, progress: Callable[[str], None]) -> list[Timing]:
    """Time both ways on a fresh scratch database; drops its size triggers on the way."""
    if connection.vendor != "sqlite":
        raise RuntimeError("the sizes benchmark runs on the scratch SQLite database")
    project = Project.objects.create(identity="git:benchsizes", name="bench sizes")
    progress(f"inserting {sync_rows:,} rows as a sync does, sized by the triggers' statement")
    triggers_insert = _timed(lambda: _insert_by_triggers(project, 0, sync_rows))
    by_triggers = list(Memory.objects.order_by("pk").values_list("pk", flat=True))
    progress(f"{saves:,} saves and {sync_rows:,} changed rows, sized by the triggers")
    triggers_saves = _timed(
        lambda: _update_by_triggers(by_triggers[:saves], 1, one_transaction=False)
    )
    triggers_sync = _timed(lambda: _update_by_triggers(by_triggers, 2, one_transaction=True))
    _drop_size_triggers()
    progress("the same, sized by the writes (size triggers dropped)")
    writes_insert = _timed(lambda: _insert_by_writes(project, sync_rows, sync_rows))
    by_writes = list(
        Memory.objects.exclude(pk__in=by_triggers).order_by("pk").values_list("pk", flat=True)
    )
    writes_saves = _timed(lambda: _update_by_writes(by_writes[:saves], 1, one_transaction=False))
    writes_sync = _timed(lambda: _update_by_writes(by_writes, 2, one_transaction=True))
    _check_same_sizes()
    return [
        Timing("a person's saves (a transaction each)", saves, triggers_saves, writes_saves),
        Timing("a sync's new rows (one transaction)", sync_rows, triggers_insert, writes_insert),
        Timing("a sync's changed rows (one transaction)", sync_rows, triggers_sync, writes_sync),
    ]


def _check_same_sizes() -> None:
    """Both ways must have written the same sizes and digests: else the timing is moot."""
    for memory in Memory.objects.select_related("size").iterator(chunk_size=2000):
        size = memory.size
        if size.tokens != heuristic_tokens(memory.content) or size.content_digest != (
            content_digest64(memory.content)
        ):
            raise RuntimeError(f"memory {memory.pk}: its stored size differs")
