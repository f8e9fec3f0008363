"""Token counts kept in the database, so a preview counts each text once, ever.

`counts_for(counter, texts)` reads every count a ledger needs in one query and hands back
a `CachedCounter` over them; counts it has to make are written in bulk by `save()`.
`ledger_texts(...)` names the texts an assembly will count, so the read can happen before
the assembly starts rather than text by text during it. A process also remembers the
counts it has read or made, by text, so a page shown again reads none.
"""

import json
from collections.abc import Iterable, Iterator, MutableMapping
from contextlib import suppress
from hashlib import sha256

from django.db import connection

from memadmin.core.hashing import content_digest
from memadmin.core.ledger import LedgerComposite, LedgerMemory, PreparedStore
from memadmin.core.tokens import CachedCounter, TokenCounter

from .models import TokenCount

WRITE_BATCH = 2000


class StoredCounts(MutableMapping):
    """A mapping of `<counter>:<digest>` keys to counts, loaded from and saved to TokenCount.

    It answers only from what `load` or `read` read; a key set later is remembered and
    written by `save`. Keys of another counter are refused: one mapping serves one counter.
    What `read` finds becomes keys only when the mapping is first looked into, so a caller
    that keeps the counts elsewhere (`counts_for`) never pays for 100,000 keys.
    """

    def __init__(self, counter_name: str):
        """Start empty for the counter called `counter_name`."""
        self.counter_name = counter_name
        self._prefix = f"{counter_name}:"
        self._counts: dict[str, int] = {}
        self._unsaved: dict[str, int] = {}
        self._read: list[tuple[list[str], list[int | None]]] = []

    def load(self, digests: Iterable[str]) -> int:
        """Read the stored counts of these digests in one query; return how many were found."""
        counts = self.read(list(digests))
        return len(counts) - counts.count(None)

    def read(self, digests: list[str]) -> list[int | None]:
        """Return the stored count of each digest (None where there is none), in one query."""
        counts: list[int | None] = [None] * len(digests)
        if not digests:
            return counts
        with connection.cursor() as cursor:
            cursor.execute(*_read_query(self.counter_name, digests))
            positions, found = cursor.fetchone()
        if positions:  # both NULL when nothing is found
            for position, count in zip(
                map(int, positions.split(",")), map(int, found.split(",")), strict=True
            ):
                counts[position] = count
        self._read.append((digests, counts))
        return counts

    def _mapping(self) -> dict[str, int]:
        """Return the counts by key, with what was read made into keys first."""
        prefix = self._prefix
        for digests, counts in self._read:
            for digest, count in zip(digests, counts, strict=True):
                if count is not None:
                    self._counts.setdefault(prefix + digest, count)
        self._read.clear()
        return self._counts

    def save(self) -> int:
        """Write the counts made since loading, skipping any another request wrote first.

        Return how many were new here.
        """
        if not self._unsaved:
            return 0
        rows = [
            TokenCount(counter=self.counter_name, digest=key[len(self._prefix) :], count=count)
            for key, count in self._unsaved.items()
        ]
        TokenCount.objects.bulk_create(rows, batch_size=WRITE_BATCH, ignore_conflicts=True)
        self._unsaved.clear()
        return len(rows)

    @property
    def unsaved(self) -> int:
        """Return how many counts wait to be saved (the misses since the last save)."""
        return len(self._unsaved)

    def _check(self, key: str) -> None:
        if not key.startswith(self._prefix):
            raise KeyError(f"{key!r} is not a key of the {self.counter_name} counter")

    def __getitem__(self, key: str) -> int:
        return self._mapping()[key]

    def __setitem__(self, key: str, count: int) -> None:
        self._check(key)
        self._counts[key] = count
        self._unsaved[key] = count

    def __delitem__(self, key: str) -> None:
        del self._mapping()[key]
        self._unsaved.pop(key, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping())

    def __len__(self) -> int:
        return len(self._mapping())


def _read_query(counter_name: str, digests: list[str]) -> tuple[str, list[str]]:
    """Return the SQL and parameters that read the stored counts of these digests.

    The digests go as one JSON parameter whatever their number (a list of parameters would
    hit the engines' limits on a large store: PostgreSQL takes at most 65,535); each is
    looked up by the (counter, digest) index. The answer is one row of two comma-separated
    lists, the positions found and their counts: two aggregates over the same rows, so
    their items pair up in order. A row per count would cost more to fetch than to find.
    """
    table = connection.ops.quote_name(TokenCount._meta.db_table)
    payload = json.dumps(digests)
    if connection.vendor == "postgresql":
        sql = (
            "SELECT string_agg((d.ord - 1)::text, ','), string_agg(t.count::text, ',') "
            "FROM jsonb_array_elements_text(%s::jsonb) WITH ORDINALITY AS d(digest, ord) "
            f"JOIN {table} AS t ON t.counter = %s AND t.digest = d.digest"
        )
    else:
        # CROSS JOIN keeps SQLite looping over the digests and probing the index (a plain
        # JOIN lets it scan every count of the counter for each digest instead).
        sql = (
            "SELECT group_concat(d.key, ','), group_concat(t.count, ',') "
            f"FROM json_each(%s) AS d CROSS JOIN {table} AS t "
            "ON t.counter = %s AND t.digest = d.value"
        )
    return sql, [payload, counter_name]


def digests_of(texts: Iterable[str]) -> dict[str, str]:
    """Return the content digest of each text that has one (a lone surrogate has none)."""
    texts = list(texts)
    return dict(zip(*_digested(texts), strict=True))


def _digested(texts: list[str]) -> tuple[list[str], list[str]]:
    """Return the texts that have a digest (a lone surrogate has none) and their digests."""
    try:
        return texts, [sha256(text.encode()).hexdigest() for text in texts]
    except UnicodeEncodeError:
        hashable = []
        for text in texts:
            try:
                text.encode()
            except UnicodeEncodeError:
                continue
            hashable.append(text)
        return hashable, [content_digest(text) for text in hashable]


class PreloadedCounter(CachedCounter):
    """A CachedCounter that first looks a text up by the text itself, so none is hashed twice.

    `by_text` is this process's memory of counts (see `remembered`), which `counts_for`
    fills with every stored count of the texts it was given: a text missing from it is in
    neither, so it is counted and its count kept for `save`, with no lookup in the store.
    An assembly asks for the same lines in both modes, and a server process for the same
    lines on every view.
    """

    def __init__(self, counter: TokenCounter, cache: StoredCounts, by_text: dict[str, int]):
        """Wrap `counter` over `cache`, knowing the counts in `by_text` already."""
        super().__init__(counter, cache)
        self.by_text = by_text

    def count(self, text: str) -> int:
        """Return the count of `text`: known by text, else counted (and kept for `save`)."""
        count = self.by_text.get(text)
        if count is None:
            count = self.by_text[text] = self.counter.count(text)
            with suppress(UnicodeEncodeError):  # a lone surrogate has no UTF-8, so no digest
                self.cache[self.key(text)] = count
        return count

    def count_many(self, texts: list[str]) -> list[int]:
        """Return the count of each text, as `count` would, looking the known ones up in bulk."""
        counts = list(map(self.by_text.get, texts))
        if None in counts:
            count = self.count
            counts = [
                count(text) if known is None else known
                for text, known in zip(texts, counts, strict=True)
            ]
        return counts


REMEMBERED_LIMIT = 300_000  # texts per counter kept in a process: some 100 MB at worst
_remembered: dict[str, dict[str, int]] = {}


def remembered(counter_name: str) -> dict[str, int]:
    """Return this process's counts by text for the counter, emptied when it grows too big.

    A count never changes for a given counter and text, so what a process once read or
    counted stays true; only its size is bounded.
    """
    counts = _remembered.setdefault(counter_name, {})
    if len(counts) > REMEMBERED_LIMIT:
        counts.clear()
    return counts


def forget_counts() -> None:
    """Empty this process's memory of counts (the database keeps them)."""
    _remembered.clear()


def counts_for(counter: TokenCounter, texts: Iterable[str]) -> tuple[CachedCounter, StoredCounts]:
    """Return a counter that knows the counts of these texts, and its store.

    Counts this process already knows cost nothing; the others are read from the database
    in one query (none when every count is known). Call `store.save()` after counting to
    keep what was counted anew.
    """
    store = StoredCounts(counter.name)
    by_text = remembered(counter.name)
    unknown, digests = _digested([text for text in texts if text not in by_text])
    if digests:
        counts = store.read(digests)
        by_text.update(
            (text, count) for text, count in zip(unknown, counts, strict=True) if count is not None
        )
    return PreloadedCounter(counter, store, by_text), store


def ledger_texts(
    memories: list[LedgerMemory], composites: Iterable[LedgerComposite], *, now_ms: int
) -> set[str]:
    """Return every text an assembly of these memories counts, in either mode.

    That is the wrapper, the tags of each category, each memory's line as plugin mode
    renders it and, for a header with eligible details, its line as headers mode renders it
    (see `PreparedStore.texts`; a caller that assembles too should prepare the store once
    and ask it).
    """
    return PreparedStore(memories, composites, now_ms=now_ms).texts()
