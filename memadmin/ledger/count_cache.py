"""Token counts kept in the database, so a preview counts each text once, ever.

A count is stored under a 64-bit key (`text_keys`) of the counter's label (its name and
version: `claude@1.0.6`, so a new ai-tokenizer never answers with an old one's counts)
and the exact text. `counts_for(counter, texts)` reads every count a ledger needs in one
query and hands back a counter that knows them; counts it has to make are written in bulk
by `CountStore.save()`. A process also remembers the counts it has read or made, by the
text's hash (not the text: a ledger's 100,000 lines would stay alive in it, some 60 MB), so a
page shown again reads none.

The key is XXH3-64 of the text's UTF-8, seeded by the label: twice as fast as SHA-256 on
100,000 memory lines, and a whole number that is the table's primary key (on SQLite its
rowid), which the database finds about three times as fast as a 64-character digest in
an index. Two texts share a key by chance only: among a million distinct texts of one
counter, the odds that any two do are about 3 in 100 million.
"""

import json
from collections.abc import Collection, Iterable
from itertools import repeat

import numpy as np
import xxhash
from django.db import connection

from memadmin.core.tokens import TokenCounter

from .models import TokenCount

WRITE_BATCH = 2000
_SIGNED = 1 << 63  # XXH3 gives 0..2**64-1; the database's integers are signed 64-bit
_xxh3_64 = xxhash.xxh3_64_intdigest


def cache_label(counter: TokenCounter) -> str:
    """Return the label a counter's counts are stored under: its name, and version if any."""
    version = getattr(counter, "version", None)
    return f"{counter.name}@{version}" if version else counter.name


def text_keys(label: str, texts: Iterable[str]) -> list[int]:
    """Return the key of each text under a counter's label, in order.

    The key is XXH3-64 of the text's UTF-8, seeded with XXH3-64 of the label, as a signed
    64-bit integer. A lone surrogate, which has no UTF-8, is encoded as it stands
    ("surrogatepass"): those bytes are not UTF-8, so they never stand for another text.
    """
    return _key_array(label, texts).tolist()


def _key_array(label: str, texts: Iterable[str]) -> np.ndarray:
    """Return `text_keys` as an array of int64.

    Texts are encoded strictly (the same bytes as "surrogatepass" for any text without a
    lone surrogate, and faster); a lone surrogate anywhere makes them encoded again with
    "surrogatepass".
    """
    texts = texts if isinstance(texts, Collection) else list(texts)
    seed = _xxh3_64(label.encode())
    try:
        encoded = map(str.encode, texts)
        digests = np.fromiter(map(_xxh3_64, encoded, repeat(seed)), np.uint64, len(texts))
    except UnicodeEncodeError:
        encoded = (text.encode("utf-8", "surrogatepass") for text in texts)
        digests = np.fromiter(map(_xxh3_64, encoded, repeat(seed)), np.uint64, len(texts))
    # Less 2**63, in 64 bits: the top bit flipped, read as signed.
    return (digests ^ np.uint64(_SIGNED)).view(np.int64)


class CountStore:
    """One counter's stored counts: read by key in one query, new ones written by `save`."""

    def __init__(self, counter: TokenCounter):
        """Serve the counts of `counter` (under its `cache_label`)."""
        self.label = cache_label(counter)
        self._unsaved: dict[str, int] = {}

    def read(self, texts: list[str]) -> list[int | None]:
        """Return the stored count of each text (None where there is none), in one query.

        The keys are asked for in ascending order, which the database finds in its primary
        key's order (a third faster than in the texts' order on 100,000 keys), and the
        counts put back in the texts' order.
        """
        if not texts:
            return []
        keys = _key_array(self.label, texts)
        order = np.argsort(keys)
        with connection.cursor() as cursor:
            cursor.execute(*_read_query(keys[order].tolist()))
            (found,) = cursor.fetchone()
        counts = json.loads(found) if isinstance(found, str) else found
        if len(counts) != len(texts):  # cannot happen: one answer per key, NULL or a count
            raise RuntimeError(f"asked for {len(texts)} token counts, got {len(counts)}")
        in_order = np.empty(len(counts), dtype=object)
        in_order[order] = counts
        return in_order.tolist()

    def keep(self, text: str, count: int) -> None:
        """Remember a count made here, to be written by `save`."""
        self._unsaved[text] = count

    def save(self) -> int:
        """Write the counts kept since the last save, skipping any another request wrote first.

        Return how many were new here.
        """
        if not self._unsaved:
            return 0
        keys = text_keys(self.label, self._unsaved)
        rows = [
            TokenCount(key=key, counter=self.label, count=count)
            for key, count in zip(keys, self._unsaved.values(), strict=True)
        ]
        TokenCount.objects.bulk_create(rows, batch_size=WRITE_BATCH, ignore_conflicts=True)
        self._unsaved.clear()
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
    """A counter that knows counts by text and counts (and keeps) only what it does not know.

    `by_hash` is this process's memory of counts (see `remembered`), which `counts_for`
    fills with every stored count of the texts it was given: a text missing from it is in
    neither, so it is counted and kept in `store` for saving, with no lookup in the store.
    An assembly asks for the same lines in both modes, and a server process for the same
    lines on every view.
    """

    def __init__(self, counter: TokenCounter, store: CountStore, by_hash: dict[int, int]):
        """Wrap `counter`, knowing the counts in `by_hash` and keeping new ones in `store`."""
        self.counter = counter
        self.name = counter.name
        self.store = store
        self.by_hash = by_hash

    def count(self, text: str) -> int:
        """Return the count of `text`: known by its hash, else counted (and kept for `save`)."""
        count = self.by_hash.get(hash(text))
        if count is None:
            count = self.by_hash[hash(text)] = self.counter.count(text)
            self.store.keep(text, count)
        return count

    def count_many(self, texts: list[str]) -> list[int]:
        """Return the count of each text, as `count` would, looking the known ones up in bulk."""
        counts = list(map(self.by_hash.get, map(hash, texts)))
        if None in counts:
            count = self.count
            counts = [
                count(text) if known is None else known
                for text, known in zip(texts, counts, strict=True)
            ]
        return counts


REMEMBERED_LIMIT = 300_000  # texts per counter kept in a process: some 30 MB at worst
_remembered: dict[str, dict[int, int]] = {}


def remembered(label: str) -> dict[int, int]:
    """Return this process's counts by text hash under a counter's label, emptied when too big.

    A count never changes for a given counter version and text, so what a process once
    read or counted stays true; only its size is bounded. The key is the text's `hash()`
    (64 bits, made once per string object and kept in it): the texts need not stay alive,
    and two texts share a hash by chance only (among 300,000 texts, odds of about 1 in 400
    million that any two do; the stored counts' XXH3 keys take the same kind of chance).
    """
    counts = _remembered.setdefault(label, {})
    if len(counts) > REMEMBERED_LIMIT:
        counts.clear()
    return counts


def forget_counts() -> None:
    """Empty this process's memory of counts and of prepared projects (the database keeps them)."""
    from .prepared_cache import forget_prepared  # it keeps counters that remember counts

    _remembered.clear()
    forget_prepared()


def counts_for(counter: TokenCounter, texts: Iterable[str]) -> tuple[PreloadedCounter, CountStore]:
    """Return a counter that knows the counts of these texts, and its store.

    Counts this process already knows cost nothing; the others are read from the database
    in one query (none when every count is known). Call `store.save()` after counting to
    keep what was counted anew.
    """
    store = CountStore(counter)
    by_hash = remembered(store.label)
    unknown = [text for text in texts if hash(text) not in by_hash] if by_hash else list(texts)
    if unknown:
        counts = store.read(unknown)
        if None in counts:
            by_hash.update(
                (hash(text), count)
                for text, count in zip(unknown, counts, strict=True)
                if count is not None
            )
        else:  # every count stored (a warm cache): all of them in one go
            by_hash.update(zip(map(hash, unknown), counts, strict=True))
    return PreloadedCounter(counter, store, by_hash), store
