"""Count tokens exactly as the npm package ai-tokenizer counts with its `claude` encoding.

magic-context counts with `encode(text, "all")`: no special-token splitting, plain
byte-pair encoding of pre-split pieces. Its result depends on a few details of that
package's JavaScript that a standard BPE does not share, and this module keeps each:

- A text shorter than 10 UTF-16 code units that is itself a vocabulary string is one token,
  whatever the pre-split would make of it.
- Every piece is first looked up, as a string, in a plain JavaScript object. That object
  also answers names it inherits (`valueOf`, `hasOwnProperty`, `__proto__`...), so a piece
  spelling one of them counts as one token, while merging never forms one.
- Only strings are looked up directly: a token that exists only in the binary table (the
  byte order mark, U+FEFF) is reached by merging, never by a piece's lookup.
- While merging, a byte run that is valid UTF-8 is decoded by a default TextDecoder before
  its string lookup, and that decoder drops a leading byte order mark: a run made of U+FEFF
  and then a vocabulary string takes that string's rank.
- Lone surrogates stay in the pre-split as themselves and become U+FFFD only when the piece
  is turned into bytes, as JavaScript's TextEncoder does.

The vocabulary and the pre-split pattern come from files that `export_claude_encoding.mjs`
writes at set-up time (see `memadmin.core.tokens`); nothing third-party is kept in the
repository. Most texts are counted by tiktoken in one call: it splits and merges exactly as
ai-tokenizer does where none of the details above applies. A text where one may apply is
split here, with Python's `re`, and its odd pieces are merged by `merge_count`.
"""

import base64
import functools
import heapq
import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import tiktoken

RANKS_FILE = "claude.tiktoken"
META_FILE = "claude.json"
EXPORT_FORMAT = 1

_DIRECT_LOOKUP_LIMIT = 10  # ai-tokenizer looks a whole text up when text.length < 10
_BYTE_ORDER_MARK = "\ufeff"
_SURROGATE = re.compile("[\ud800-\udfff]")


class EncodingFilesMissing(Exception):
    """The exported encoding files are absent, incomplete or of another format."""


def merge_count(data: bytes, rank_of: Callable[[bytes], int | None]) -> int:
    """Return how many tokens byte-pair merging leaves of `data`.

    Merge the adjacent pair of lowest rank, the leftmost among equals, until no pair has a
    rank; then count the parts that have a rank (ai-tokenizer drops those that do not).
    `rank_of` gives the rank of a byte run, or None.
    """
    size = len(data)
    following = list(range(1, size + 1))  # following[start] = where the next part starts
    preceding = list(range(-1, size - 1))
    alive = [True] * size
    candidates: list[tuple[int, int, int]] = []  # (rank, start, end) of a pair of parts

    def offer(start: int) -> None:
        middle = following[start]
        if middle < size:
            rank = rank_of(data[start : following[middle]])
            if rank is not None:
                heapq.heappush(candidates, (rank, start, following[middle]))

    for start in range(size - 1):
        offer(start)
    while candidates:
        _, start, end = heapq.heappop(candidates)
        middle = following[start] if alive[start] else size
        if middle >= size or following[middle] != end:
            continue  # one of the two parts has merged since this pair was offered
        alive[middle] = False
        following[start] = end
        if end < size:
            preceding[end] = start
        offer(start)
        if preceding[start] >= 0:
            offer(preceding[start])
    starts = [start for start in range(size) if alive[start]]
    return sum(rank_of(data[start : following[start]]) is not None for start in starts)


def utf16_length(text: str) -> int:
    """Return JavaScript's `text.length`: the number of UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _as_javascript_string(text: str) -> str:
    """Return the text with surrogate pairs joined, as JavaScript reads the same code units."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _javascript_utf8(text: str) -> bytes:
    """Return the UTF-8 bytes JavaScript's TextEncoder makes: lone surrogates become U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode()


def read_ranks(path: Path) -> dict[bytes, int]:
    """Return the ranks of a tiktoken file: one `<base64 token> <rank>` per line."""
    ranks = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def check_ranks(path: Path) -> None:
    """Raise OSError or ValueError where `read_ranks` would, keeping nothing read."""
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            base64.b64decode(token)
            int(rank)


class ClaudeEncoding:
    """ai-tokenizer's `claude` encoding, loaded from the files of one export.

    The files are checked when it is made; the vocabulary's tables and tiktoken's encoder
    (some 40 MB resident between them) are built on the first count. A server whose counts
    are all stored (`memadmin.ledger.count_cache`) never needs them.
    """

    def __init__(self, directory: Path):
        """Load the export in `directory`; raise EncodingFilesMissing if it is not usable."""
        meta_path, self._ranks_path = directory / META_FILE, directory / RANKS_FILE
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            check_ranks(self._ranks_path)
        except (OSError, ValueError) as error:
            raise EncodingFilesMissing(f"cannot read the exported encoding: {error}") from error
        if meta.get("format") != EXPORT_FORMAT:
            raise EncodingFilesMissing(
                f"{meta_path} has export format {meta.get('format')!r}, expected {EXPORT_FORMAT}"
            )
        self.package_version: str = meta["package_version"]
        self._pattern: str = meta["pattern"]
        self._bpe_only = {base64.b64decode(token) for token in meta["bpe_only_tokens"]}
        self._inherited = frozenset(meta["inherited_names"])
        self._split = re.compile(meta["pattern"]).findall
        # A text holding none of these is counted by tiktoken alone. A name the pattern
        # splits (`__proto__`) is never one piece, so it can matter only as a whole text.
        self._markers = (
            *(name for name in sorted(self._inherited) if self._split(name) == [name]),
            _BYTE_ORDER_MARK,
            *(token.decode() for token in self._bpe_only),
        )

    @functools.cached_property
    def _ranks(self) -> dict[bytes, int]:
        return read_ranks(self._ranks_path)

    @functools.cached_property
    def _strings(self) -> dict[str, int]:
        return dict(_string_ranks(self._ranks, self._bpe_only))

    @functools.cached_property
    def _direct(self) -> set[str]:
        return self._strings.keys() | self._inherited

    @functools.cached_property
    def _tiktoken(self) -> tiktoken.Encoding:
        return tiktoken.Encoding(
            name="memadmin-claude",
            pat_str=rust_pattern(self._pattern),
            mergeable_ranks=self._ranks,
            special_tokens={},
        )

    def count(self, text: str) -> int:
        """Return the number of tokens ai-tokenizer's `encode(text, "all")` makes of `text`."""
        if text in self._direct and utf16_length(text) < _DIRECT_LOOKUP_LIMIT:
            return 1
        if self._needs_pieces(text):
            return self.count_by_pieces(text)
        return len(self._tiktoken.encode_ordinary(text))

    def _needs_pieces(self, text: str) -> bool:
        for marker in self._markers:
            if marker in text:
                return True
        return not text.isascii() and _SURROGATE.search(text) is not None

    def count_by_pieces(self, text: str) -> int:
        """Return the count of `count`, always splitting and counting piece by piece."""
        if text in self._direct and utf16_length(text) < _DIRECT_LOOKUP_LIMIT:
            return 1
        if not text.isascii() and _SURROGATE.search(text):
            text = _as_javascript_string(text)
        return sum(self._count_piece(piece) for piece in self._split(text))

    def _count_piece(self, piece: str) -> int:
        if piece in self._direct:
            return 1
        data = _javascript_utf8(piece)
        if _BYTE_ORDER_MARK in piece or data in self._bpe_only or _SURROGATE.search(piece):
            return merge_count(data, self._javascript_rank)
        # Split again by the same pattern a piece stays whole, so tiktoken merges it alone;
        # without a byte order mark its byte lookups agree with ai-tokenizer's.
        return len(self._tiktoken.encode_ordinary(piece))

    def _javascript_rank(self, data: bytes) -> int | None:
        """Return the rank ai-tokenizer's merge step finds for a byte run, or None."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._binary_ranks.get(data)
        key = text.removeprefix(_BYTE_ORDER_MARK)  # what a default TextDecoder returns
        if key in self._strings:
            return self._strings[key]
        if key in self._inherited:
            return None  # found, but not a number: never merged
        return self._binary_ranks.get(data)

    @functools.cached_property
    def _binary_ranks(self) -> dict[bytes, int]:
        """Return the ranks of the tokens not in the string table."""
        strings = {text.encode() for text in self._strings}
        return {token: rank for token, rank in self._ranks.items() if token not in strings}


def _string_ranks(ranks: Mapping[bytes, int], excluded: set[bytes]) -> Iterator[tuple[str, int]]:
    """Yield the tokens that are valid UTF-8 and not in `excluded`, as strings, with ranks."""
    for token, rank in ranks.items():
        if token not in excluded:
            try:
                yield token.decode("utf-8"), rank
            except UnicodeDecodeError:
                continue


_PYTHON_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|.)", re.DOTALL)


def rust_pattern(pattern: str) -> str:
    """Return the exported Python `re` pattern in the syntax of tiktoken's regex engine.

    Only the code point escapes differ (`\\x{...}` there). Rust strings hold no surrogates, so
    a pattern naming one cannot be carried over and raises EncodingFilesMissing.
    """

    def escape(match: re.Match[str]) -> str:
        if not (match[1] or match[2]):
            return match[0]
        code_point = int(match[1] or match[2], 16)
        if 0xD800 <= code_point <= 0xDFFF:
            raise EncodingFilesMissing("the exported pattern names a surrogate code point")
        return f"\\x{{{code_point:x}}}"

    return _PYTHON_ESCAPE.sub(escape, pattern)
