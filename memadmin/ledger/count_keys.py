"""The 64-bit keys token counts are stored under (see `count_cache`): a counter label's
and the counted text's, or a memory line's made of numbers.

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

from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import compress, repeat
from operator import attrgetter

import numpy as np
import xxhash

from memadmin.core.ledger import LedgerMemory
from memadmin.core.ledger.render import counted_lines

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


def text_seed(label: str) -> int:
    """Return the seed a counter label's text keys are made with (see `text_key`)."""
    return _xxh3_64(label.encode())


def text_keys(label: str, texts: Iterable[str]) -> list[int]:
    """Return the key of each text under a counter's label, in order.

    The key is XXH3-64 of the text's UTF-8, seeded with XXH3-64 of the label, as a signed
    64-bit integer. A lone surrogate, which has no UTF-8, is encoded as it stands
    ("surrogatepass"): those bytes are not UTF-8, so they never stand for another text.
    """
    return text_key_array(label, texts).tolist()


def text_key_array(label: str, texts: Iterable[str]) -> np.ndarray:
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


def text_key(seed: int, text: str) -> int:
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
    keys[~mask] = text_key_array(label, counted_lines(others, {}))
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
    keys[~mask] = text_key_array(label, counted_lines(others, suffixes))
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
