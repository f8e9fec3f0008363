"""Count tokens exactly as the npm package ai-tokenizer counts with its `claude` encoding.

magic-context counts with `encode(text, "all")`: no special-token splitting, plain
byte-pair encoding of pre-split pieces. Its result depends on a few details of that
package's JavaScript that a standard BPE does not share, and this module keeps each:

- A text shorter than 10 UTF-16 code units that is itself a vocabulary string is one token,
  whatever the pre-split would make of it.
- Every piece is first looked up, as a string, in a plain JavaScript object. That object
  also answers names it inherits (`valueOf`, `hasOwnProperty`, `__proto__`...), so a piece
  spelling one of them counts as one token.
- Only strings are looked up directly: a token that exists only in the binary table
  (the byte order mark) is reached by merging, never by lookup.
- Lone surrogates stay in the pre-split as themselves and become U+FFFD only when the piece
  is turned into bytes, as JavaScript's TextEncoder does.

The vocabulary and the pre-split pattern come from files that `export_claude_encoding.mjs`
writes at set-up time (see `memadmin.core.tokens`); nothing third-party is kept in the
repository. Merging runs in tiktoken, which merges exactly as ai-tokenizer does (lowest rank
first, leftmost on ties); the rare piece that must bypass tiktoken's direct lookup is merged
by `merge_count`, a plain port of the same algorithm.
"""

import base64
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import tiktoken

RANKS_FILE = "claude.tiktoken"
META_FILE = "claude.json"
EXPORT_FORMAT = 1

_DIRECT_LOOKUP_LIMIT = 10  # ai-tokenizer looks a whole text up when text.length < 10
_SURROGATE = re.compile("[\ud800-\udfff]")


class EncodingFilesMissing(Exception):
    """The exported encoding files are absent, incomplete or of another format."""


def merge_count(data: bytes, ranks: Mapping[bytes, int]) -> int:
    """Return how many tokens byte-pair merging leaves of `data`.

    Merge the adjacent pair of lowest rank, the leftmost among equals, until no pair has a
    rank; then count the parts that have a rank (ai-tokenizer drops those that do not).
    """
    starts = list(range(len(data) + 1))

    def pair_rank(i: int) -> int | None:
        if i + 2 >= len(starts):
            return None
        return ranks.get(data[starts[i] : starts[i + 2]])

    pair_ranks = [pair_rank(i) for i in range(len(starts) - 2)]
    while True:
        best = None
        for i, rank in enumerate(pair_ranks):
            if rank is not None and (best is None or rank < pair_ranks[best]):
                best = i
        if best is None:
            break
        del starts[best + 1]
        del pair_ranks[best]
        if best < len(pair_ranks):
            pair_ranks[best] = pair_rank(best)
        if best > 0:
            pair_ranks[best - 1] = pair_rank(best - 1)
    return sum(data[starts[i] : starts[i + 1]] in ranks for i in range(len(starts) - 1))


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
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode()


def read_ranks(path: Path) -> dict[bytes, int]:
    """Return the ranks of a tiktoken file: one `<base64 token> <rank>` per line."""
    ranks = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


class ClaudeEncoding:
    """ai-tokenizer's `claude` encoding, loaded from the files of one export.

    Most texts are counted by tiktoken in one call, with the exported pattern in the syntax
    of its regex engine. A text where one of the details above may apply (it contains an
    inherited name, a token reached only by merging, or a surrogate) is split here, with
    Python's `re`, and counted piece by piece.
    """

    def __init__(self, directory: Path):
        """Load the export in `directory`; raise EncodingFilesMissing if it is not usable."""
        meta_path, ranks_path = directory / META_FILE, directory / RANKS_FILE
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            ranks = read_ranks(ranks_path)
        except (OSError, ValueError) as error:
            raise EncodingFilesMissing(f"cannot read the exported encoding: {error}") from error
        if meta.get("format") != EXPORT_FORMAT:
            raise EncodingFilesMissing(
                f"{meta_path} has export format {meta.get('format')!r}, expected {EXPORT_FORMAT}"
            )
        self.package_version: str = meta["package_version"]
        self._ranks = ranks
        self._bpe_only = {base64.b64decode(token) for token in meta["bpe_only_tokens"]}
        self._direct = frozenset(_strings(ranks, self._bpe_only)) | set(meta["inherited_names"])
        self._split = re.compile(meta["pattern"]).findall
        # Texts that may hold a piece the direct lookup treats unlike tiktoken: one that
        # spells an inherited name or a token reached only by merging. A name the pattern
        # splits (`__proto__`) is never one piece, so it can matter only as a whole text.
        candidates = [*meta["inherited_names"], *(t.decode("utf-8") for t in self._bpe_only)]
        self._markers = tuple(name for name in candidates if self._split(name) == [name])
        self._tiktoken = tiktoken.Encoding(
            name="memadmin-claude",
            pat_str=rust_pattern(meta["pattern"]),
            mergeable_ranks=ranks,
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
        try:
            data = piece.encode("utf-8")
        except UnicodeEncodeError:
            return merge_count(_javascript_utf8(piece), self._ranks)
        if data in self._bpe_only:
            return merge_count(data, self._ranks)
        # A piece split again by the same pattern stays whole, so this merges it alone.
        return len(self._tiktoken.encode_ordinary(piece))


def _strings(ranks: Mapping[bytes, int], excluded: set[bytes]) -> Iterator[str]:
    """Yield the tokens that are valid UTF-8 and not in `excluded`, as strings."""
    for token in ranks:
        if token not in excluded:
            try:
                yield token.decode("utf-8")
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
