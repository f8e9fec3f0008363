"""Token counts kept in the database, so a preview counts each text once, ever.

A count is stored under a 64-bit key of the counter's label (its name and version:
`claude@1.0.6`, so a new ai-tokenizer never answers with an old one's counts) and what is
counted. `counts_for(counter, texts, memories)` reads every count a ledger needs in one
query and hands back a counter that knows them; counts it has to make are written in bulk
by `CountStore.save()`. A process also remembers the counts it has read or made, by key
(not by text: a ledger's 100,000 lines would stay alive in it, some 60 MB), so a page
shown again reads none.

How each text or memory line is keyed is `count_keys`'s business.
"""

import json
from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np
from django.db import connection

from memadmin.core.ledger import LedgerMemory
from memadmin.core.ledger.render import counted_lines
from memadmin.core.process_cache import Kept, ProcessCache
from memadmin.core.tokens import TokenCounter

from .count_keys import header_keys, memory_keys, text_key, text_key_array, text_keys, text_seed
from .models import TokenCount

WRITE_BATCH = 2000


def cache_label(counter: TokenCounter) -> str:
    """Return the label a counter's counts are stored under: its name, and version if any."""
    version = getattr(counter, "version", None)
    return f"{counter.name}@{version}" if version else counter.name


class CountStore:
    """One counter's stored counts: read by key in one query, new ones written by `save`."""

    def __init__(self, counter: TokenCounter):
        """Serve the counts of `counter` (under its `cache_label`)."""
        self.label = cache_label(counter)
        self._unsaved: dict[int, int] = {}

    def read_keys(self, keys: Sequence[int] | np.ndarray) -> dict[int, int]:
        """Return the stored count of each key that has one, by key, in one query."""
        wanted, counts = self._read_sorted(keys)
        found = counts >= 0
        return dict(zip(wanted[found].tolist(), counts[found].tolist(), strict=True))

    def _read_sorted(self, keys: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return the keys once each, ascending, and the stored count of each (-1 for none),
        read in one query, as two arrays of int64.

        The keys are asked for in ascending order, which the database finds in its primary
        key's order (a third faster than in any other order on 100,000 keys).
        """
        wanted = np.sort(np.asarray(keys, dtype=np.int64))  # np.unique hashes: 10 times slower
        if not len(wanted):
            return wanted, wanted.copy()
        wanted = wanted[np.concatenate(([True], wanted[1:] != wanted[:-1]))]
        with connection.cursor() as cursor:
            cursor.execute(*_read_query(wanted.tolist()))
            (found,) = cursor.fetchone()
        counts = json.loads(found) if isinstance(found, str) else found
        if len(counts) != len(wanted):  # cannot happen: one answer per key, NULL or a count
            raise RuntimeError(f"asked for {len(wanted)} token counts, got {len(counts)}")
        if None in counts:
            counts = [-1 if count is None else count for count in counts]
        return wanted, np.array(counts, dtype=np.int64)

    def read(self, texts: list[str]) -> list[int | None]:
        """Return the stored count of each text (None where there is none), in one query."""
        keys = text_keys(self.label, texts)
        found = self.read_keys(keys)
        return list(map(found.get, keys))

    def keep(self, key: int, count: int) -> None:
        """Remember a count made here under its key, to be written by `save`."""
        self._unsaved[key] = count

    def save(self) -> int:
        """Write the counts kept since the last save, skipping any another request wrote first.

        Return how many were new here.
        """
        unsaved, self._unsaved = self._unsaved, {}
        if not unsaved:
            return 0
        rows = [
            TokenCount(key=key, counter=self.label, count=count) for key, count in unsaved.items()
        ]
        TokenCount.objects.bulk_create(rows, batch_size=WRITE_BATCH, ignore_conflicts=True)
        return len(rows)

    @property
    def unsaved(self) -> int:
        """Return how many counts wait to be saved (the misses since the last save)."""
        return len(self._unsaved)


def _read_query(keys: list[int]) -> tuple[str, list[str]]:
    """Return the SQL and parameters that read the stored count of each key, in order.

    The keys go as one JSON parameter whatever their number (a list of parameters would
    hit the engines' limits on a large store: PostgreSQL takes at most 65,535), and the
    counts come back as one JSON array, a count or null for each key in the order given:
    one row is cheaper to fetch than a row per count. Each key is found by the primary key.
    The keys are the outer side of a LEFT JOIN, so they are read in their order, and the
    array follows it (SQLite aggregates rows in the order they are made; PostgreSQL is
    told the order).
    """
    table = connection.ops.quote_name(TokenCount._meta.db_table)
    payload = json.dumps(keys)
    if connection.vendor == "postgresql":
        sql = (
            "SELECT json_agg(t.count ORDER BY d.ord) "
            "FROM jsonb_array_elements_text(%s::jsonb) WITH ORDINALITY AS d(key, ord) "
            f"LEFT JOIN {table} AS t ON t.key = d.key::bigint"
        )
    else:
        sql = (
            "SELECT json_group_array(t.count) "
            f"FROM json_each(%s) AS d LEFT JOIN {table} AS t ON t.key = d.value"
        )
    return sql, [payload]


class PreloadedCounter:
    """A counter that knows counts by key and counts (and keeps) only what it does not know.

    `by_key` is this process's memory of counts (see `remembered`), which `counts_for`
    fills with every stored count of the texts and lines it was given: a key missing from
    it is in neither, so its text is counted and kept in `store` for saving, with no lookup
    in the store. An assembly asks for the same lines in both modes, and a server process
    for the same lines on every view.
    """

    def __init__(self, counter: TokenCounter, store: CountStore, by_key: dict[int, int]):
        """Wrap `counter`, knowing the counts in `by_key` and keeping new ones in `store`."""
        self.counter = counter
        self.name = counter.name
        self.store = store
        self.by_key = by_key
        self._seed = text_seed(store.label)
        # By list identity: the keys `counts_for` made of a list of memories and the counts
        # it read of them (None for none; no list when it read only some), for the first
        # `count_memories` of that very list (a store's memories, never changed in place).
        self._keyed: dict[int, tuple[Sequence[LedgerMemory], np.ndarray, list[int] | None]] = {}

    def forget_keys(self) -> None:
        """Let go of the keys `counts_for` made and of the memory lists they are for."""
        self._keyed.clear()

    def count(self, text: str) -> int:
        """Return the count of `text`: known by its key, else counted (and kept for `save`)."""
        key = text_key(self._seed, text)
        count = self.by_key.get(key)
        if count is None:
            count = self._counted(key, text)
        return count

    def count_many(self, texts: list[str]) -> list[int]:
        """Return the count of each text, as `count` would, looking the known ones up in bulk."""
        keys = text_key_array(self.store.label, texts)
        return self._filled(keys, None, lambda at: texts[at])

    def count_memories(
        self, memories: Sequence[LedgerMemory], unneeded: Collection[int] = ()
    ) -> list[int | None]:
        """Return the count of each memory's plugin-mode line, in order (see `memory_keys`).

        Only a line whose count is unknown is rendered, to be counted; that of a memory
        whose id is `unneeded` is not (None in its place: headers mode costs a header by its
        line with its details).
        """
        keyed = self._keyed.pop(id(memories), None)
        if keyed is not None and keyed[0] is memories and len(keyed[1]) == len(memories):
            _, keys, counts = keyed
        else:
            keys, counts = memory_keys(self.store.label, memories), None

        def text_at(at: int) -> str | None:
            memory = memories[at]
            return None if memory.id in unneeded else counted_lines((memory,), {})[0]

        return self._filled(keys, counts, text_at)

    def count_headers(
        self, memories: Sequence[LedgerMemory], suffixes: Mapping[int, str]
    ) -> list[int]:
        """Return the count of each memory's line ending with its suffix, in order (see
        `header_keys`). Only a line whose count is unknown is rendered, to be counted."""
        keyed = self._keyed.pop(id(memories), None)
        if keyed is not None and keyed[0] is memories and len(keyed[1]) == len(memories):
            _, keys, counts = keyed
        else:
            keys, counts = header_keys(self.store.label, memories, suffixes), None
        return self._filled(keys, counts, lambda at: counted_lines((memories[at],), suffixes)[0])

    def _filled(self, keys: np.ndarray, counts: list | None, text_at) -> list:
        """Return `counts` (looked up by key when None) with each unknown one (None) known
        since or counted now, its text made by `text_at(position)` (None: left unknown)."""
        if counts is None:
            counts = list(map(self.by_key.get, keys.tolist()))
        if None in counts:
            for at, known in enumerate(counts):
                if known is None:
                    key = int(keys[at])
                    known = self.by_key.get(key)  # the same text twice: counted once
                    if known is None and (text := text_at(at)) is not None:
                        known = self._counted(key, text)
                    counts[at] = known
        return counts

    def _counted(self, key: int, text: str) -> int:
        count = self.by_key[key] = self.counter.count(text)
        self.store.keep(key, count)
        return count


REMEMBERED_LIMIT = 300_000  # counts per counter kept in a process: some 30 MB at worst
# By counter label: counts never go stale (version None), only too many.
remembered_counts: ProcessCache[dict[int, int]] = ProcessCache("token counts by counter")


def remembered(label: str) -> dict[int, int]:
    """Return this process's counts by key under a counter's label, emptied when too big.

    A count never changes for a given counter version and text, so what a process once
    read or counted stays true; only its size is bounded. The key is the stored count's
    (`memory_keys`, `text_keys`): the texts need not stay alive. Each entry is two ints
    (a 64-bit key, some 32 bytes, and a count, most of them small) in a dict slot: about
    100 bytes, so 300,000 of them (three 100,000-memory stores) are some 30 MB.
    """
    return remembered_counts.get(
        label, None, _emptied, still=lambda counts: len(counts) <= REMEMBERED_LIMIT
    )


def _emptied(kept: Kept[dict[int, int]] | None) -> dict[int, int]:
    """Return the kept counts emptied in place (the counters holding them see it), or new."""
    if kept is None:
        return {}
    kept.value.clear()
    return kept.value


def counts_for(
    counter: TokenCounter,
    texts: Iterable[str],
    memories: Sequence[Sequence[LedgerMemory]] = (),
    headers: Sequence[tuple[Sequence[LedgerMemory], Mapping[int, str]]] = (),
) -> tuple[PreloadedCounter, CountStore]:
    """Return a counter that knows the counts of these texts, of the lines of these lists
    of memories (plugin mode's, see `memory_keys`) and of these lists of headers' lines with
    their suffixes (see `header_keys`), and its store.

    Counts this process already knows cost nothing; the others are read from the database
    in one query (none when every count is known). Call `store.save()` after counting to
    keep what was counted anew. The first `count_memories` (or `count_headers`) of one of
    these very lists uses the keys and counts read here (`forget_keys` lets them go).
    """
    store = CountStore(counter)
    label = store.label
    by_key = remembered(label)
    texts = texts if isinstance(texts, Collection) else list(texts)
    keyed = {id(listed): (listed, memory_keys(label, listed)) for listed in memories}
    for listed, suffixes in headers:
        keyed[id(listed)] = (listed, header_keys(label, listed, suffixes))
    keys = np.concatenate([*(keys for _, keys in keyed.values()), text_key_array(label, texts)])
    everything = not by_key  # a new process: every key is read, and the read says all
    if by_key:
        keys = [key for key in keys.tolist() if key not in by_key]
    wanted, counts = store._read_sorted(keys)
    found = counts >= 0
    by_key.update(zip(wanted[found].tolist(), counts[found].tolist(), strict=True))
    cached = PreloadedCounter(counter, store, by_key)
    for at, (listed, listed_keys) in keyed.items():
        # Each line's count from the sorted keys read (all of them there), not by key.
        read = None
        if everything:
            read_counts = counts[np.searchsorted(wanted, listed_keys)]
            read = read_counts.tolist()
            if (read_counts < 0).any():
                read = [None if count < 0 else count for count in read]
        cached._keyed[at] = (listed, listed_keys, read)
    return cached, store
