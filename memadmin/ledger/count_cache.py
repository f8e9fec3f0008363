"""Token counts kept in the database, so a preview counts each text once, ever.

A count is stored under a 64-bit key of the counter's label (its name and version:
`claude@1.0.6`, so a new ai-tokenizer never answers with an old one's counts) and what is
counted. `counts_for(counter, texts, memories)` reads every count a ledger needs in one
query and hands back a counter that knows them; counts it has to make are written in bulk
by `CountStore.save()`. A process also remembers the counts it has read or made, by key
(not by text: a ledger's 100,000 lines would stay alive in it, some 60 MB), so a page
shown again reads none.

A memory's plain line, `#id: content\n` (`core.ledger.render.counted_lines` with no
source and no suffix), is fully determined by its id and content, and memadmin stores a
64-bit digest of every memory's content (`MemorySize.content_digest`, read with the
memory as `LedgerMemory.content_digest`): its key (`memory_keys`) is a mix of the label's
seed, the id and that digest, made with numpy over all of a store's memories at once, so
a warm read renders and hashes no line. A header's line in headers mode, the same line
ending with the ids of its details (`core.ledger.headers`), is keyed by its plain line's
key mixed with XXH3-64 of that suffix (`header_keys`). Every other text (the wrapper, a
category's tags, the line of a memory with a source or of one whose digest is unknown) is
keyed by `text_keys`: XXH3-64 of the text's UTF-8, seeded by the label.

Either key is a whole number that is the table's primary key (on SQLite its rowid), which
the database finds about three times as fast as a 64-character digest in an index. Two
counted things share a key by chance only: both keys behave as random 64-bit numbers
(XXH3; splitmix64's finalizer, a bijection, over an MD5-derived digest), so among a
million distinct texts and lines of one counter the odds that any two do are about 3 in
100 million. A line's key also trusts its digest: two contents share the first 8 bytes of
their MD5 by chance with odds of the same kind.
"""

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import attrgetter

import numpy as np
import xxhash
from django.db import connection

from memadmin.core.ledger import LedgerMemory
from memadmin.core.ledger.render import counted_lines
from memadmin.core.tokens import TokenCounter

from .models import TokenCount

WRITE_BATCH = 2000
_SIGNED = 1 << 63  # XXH3 gives 0..2**64-1; the database's integers are signed 64-bit
_xxh3_64 = xxhash.xxh3_64_intdigest
_LINE_SEED_SALT = b"memory line\x00"  # a line's seed is not the label's text seed
# splitmix64's finalizer (Steele, Lea and Flood; Vigna's constants): a bijection of 64 bits
# whose every output bit depends on every input bit.
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_id_of = attrgetter("id")
_digest_of = attrgetter("content_digest")
_source_of = attrgetter("source_name")


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


def _text_key(seed: int, text: str) -> int:
    """Return one text's key (`text_keys`), given its label's seed."""
    try:
        data = text.encode()
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
    return _xxh3_64(data, seed) - _SIGNED


def _mix(values: np.ndarray) -> np.ndarray:
    """Return splitmix64's finalizer of each uint64 (wrapping arithmetic)."""
    values = values ^ (values >> np.uint64(30))
    values *= _MIX_1
    values ^= values >> np.uint64(27)
    values *= _MIX_2
    values ^= values >> np.uint64(31)
    return values


def line_keys(label: str, ids: Sequence[int], digests: Sequence[int]) -> np.ndarray:
    """Return the key of each plain memory line `#id: content\n` under a counter's label,
    given the memories' ids and content digests (signed 64-bit each), as an array of int64.

    The key is mix(mix(digest ^ seed) ^ id), mix being splitmix64's finalizer and the seed
    XXH3-64 of the label (salted: a line's seed is not its label's text seed).
    """
    seed = np.uint64(_xxh3_64(_LINE_SEED_SALT + label.encode()))
    ids = np.asarray(ids, dtype=np.int64).view(np.uint64)
    digests = np.asarray(digests, dtype=np.int64).view(np.uint64)
    return (_mix(_mix(digests ^ seed) ^ ids)).view(np.int64)


def is_plain(memory: LedgerMemory) -> bool:
    """Return whether a memory's plugin-mode line is keyed by its id and digest."""
    return memory.content_digest is not None and not memory.source_name


def memory_keys(label: str, memories: Sequence[LedgerMemory]) -> np.ndarray:
    """Return the key of each memory's plugin-mode line (`#id: content\n`, or with its
    source), in order, as an array of int64.

    A plain line (`is_plain`) is keyed by its id and content digest (`line_keys`), never
    rendered; any other line is rendered and keyed by its text (`text_keys`).
    """
    digests = list(map(_digest_of, memories))
    if None not in digests and not any(map(_source_of, memories)):
        ids = np.fromiter(map(_id_of, memories), dtype=np.int64, count=len(memories))
        return line_keys(label, ids, np.fromiter(digests, dtype=np.int64, count=len(digests)))
    plain = list(map(is_plain, memories))
    keys = np.empty(len(memories), dtype=np.int64)
    mask = np.fromiter(plain, dtype=bool, count=len(memories))
    known = list(compress(memories, plain))
    keys[mask] = line_keys(label, list(map(_id_of, known)), list(map(_digest_of, known)))
    others = [memory for memory, keyed in zip(memories, plain, strict=True) if not keyed]
    keys[~mask] = _key_array(label, counted_lines(others, {}))
    return keys


def header_keys(
    label: str, memories: Sequence[LedgerMemory], suffixes: Mapping[int, str]
) -> np.ndarray:
    """Return the key of each memory's line ending with its suffix (`#id: content{suffix}\n`,
    a header's line in headers mode), in order, as an array of int64.

    A plain one (`is_plain`) is keyed by its plain line's key and XXH3-64 of its suffix,
    mixed (`mix(line key ^ suffix hash)`), never rendered; any other is rendered and keyed by
    its text (`text_keys`).
    """
    ids = list(map(_id_of, memories))
    digests = list(map(_digest_of, memories))
    if None not in digests and not any(map(_source_of, memories)):
        return _suffixed(line_keys(label, ids, digests), map(suffixes.__getitem__, ids))
    plain = list(map(is_plain, memories))
    keys = np.empty(len(memories), dtype=np.int64)
    mask = np.fromiter(plain, dtype=bool, count=len(memories))
    known = list(compress(memories, plain))
    lines = line_keys(label, list(map(_id_of, known)), list(map(_digest_of, known)))
    keys[mask] = _suffixed(lines, (suffixes[memory.id] for memory in known))
    others = [memory for memory, keyed in zip(memories, plain, strict=True) if not keyed]
    keys[~mask] = _key_array(label, counted_lines(others, suffixes))
    return keys


def _suffixed(lines: np.ndarray, suffixes: Iterable[str]) -> np.ndarray:
    """Return the keys of lines ending with these suffixes, from their plain lines' keys."""
    suffixes = list(suffixes)
    try:
        hashes = np.fromiter(map(_xxh3_64, map(str.encode, suffixes)), np.uint64, len(suffixes))
    except UnicodeEncodeError:  # a lone surrogate (not in a suffix of ids, but surely kept)
        encoded = (suffix.encode("utf-8", "surrogatepass") for suffix in suffixes)
        hashes = np.fromiter(map(_xxh3_64, encoded), np.uint64, len(suffixes))
    return _mix(lines.view(np.uint64) ^ hashes).view(np.int64)


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
        if not self._unsaved:
            return 0
        rows = [
            TokenCount(key=key, counter=self.label, count=count)
            for key, count in self._unsaved.items()
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
        self._seed = _xxh3_64(store.label.encode())
        # By list identity: the keys `counts_for` made of a list of memories and the counts
        # it read of them (None for none; no list when it read only some), for the first
        # `count_memories` of that very list (a store's memories, never changed in place).
        self._keyed: dict[int, tuple[Sequence[LedgerMemory], np.ndarray, list[int] | None]] = {}

    def forget_keys(self) -> None:
        """Let go of the keys `counts_for` made and of the memory lists they are for."""
        self._keyed.clear()

    def count(self, text: str) -> int:
        """Return the count of `text`: known by its key, else counted (and kept for `save`)."""
        key = _text_key(self._seed, text)
        count = self.by_key.get(key)
        if count is None:
            count = self._counted(key, text)
        return count

    def count_many(self, texts: list[str]) -> list[int]:
        """Return the count of each text, as `count` would, looking the known ones up in bulk."""
        keys = _key_array(self.store.label, texts)
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
_remembered: dict[str, dict[int, int]] = {}


def remembered(label: str) -> dict[int, int]:
    """Return this process's counts by key under a counter's label, emptied when too big.

    A count never changes for a given counter version and text, so what a process once
    read or counted stays true; only its size is bounded. The key is the stored count's
    (`memory_keys`, `text_keys`): the texts need not stay alive. Each entry is two ints
    (a 64-bit key, some 32 bytes, and a count, most of them small) in a dict slot: about
    100 bytes, so 300,000 of them (three 100,000-memory stores) are some 30 MB.
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
    keys = np.concatenate([*(keys for _, keys in keyed.values()), _key_array(label, texts)])
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
