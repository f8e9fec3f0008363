"""Word-level differences between two versions of a memory, as plain data.

`word_diff` gives one run of operations over the whole text, for a timeline entry;
`side_by_side` gives line-aligned rows for a two-column compare. Nothing here escapes or
renders: templates do that with the `kind` of each operation.

Tokens are words (runs of letters, digits and underscores), single punctuation marks and
runs of whitespace, so joining the `equal` and `delete` texts always gives the old text
back, and joining the `equal` and `insert` texts gives the new one.
"""

import difflib
import re
from dataclasses import dataclass
from typing import Literal

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)

DiffKind = Literal["equal", "insert", "delete"]
RowKind = Literal["equal", "change", "delete", "insert"]


@dataclass(frozen=True, slots=True)
class DiffOp:
    """A run of text that both versions share, or that only one of them has."""

    kind: DiffKind
    text: str


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a side-by-side compare: a line of each version, or of one of them.

    `old` and `new` hold the row's line as operations (`equal` and `delete` on the old
    side, `equal` and `insert` on the new), empty where that side has no line; the line
    numbers count from 1 and are None there too.
    """

    kind: RowKind
    old_number: int | None
    old: tuple[DiffOp, ...]
    new_number: int | None
    new: tuple[DiffOp, ...]


def tokenize(text: str) -> list[str]:
    """Return the text's tokens: words, punctuation marks and whitespace runs."""
    return _TOKEN.findall(text)


def word_diff(old: str, new: str) -> list[DiffOp]:
    """Return the operations that turn the old text into the new, word by word.

    Within each changed stretch all deletions come before all insertions, and whitespace
    alone between two changes is folded into them, so a rewritten phrase reads as one
    deletion and one insertion rather than a patchwork.
    """
    old_tokens, new_tokens = tokenize(old), tokenize(new)
    matcher = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
    pieces: list[tuple[str, str, str]] = []  # (kind, old text, new text)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        kind = "equal" if tag == "equal" else "change"
        pieces.append((kind, "".join(old_tokens[i1:i2]), "".join(new_tokens[j1:j2])))
    return _merge(_fold_lone_whitespace(pieces))


def _fold_lone_whitespace(pieces: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Turn equal whitespace between two changes into a change of its own."""
    folded = []
    for index, (kind, old_text, new_text) in enumerate(pieces):
        between_changes = (
            0 < index < len(pieces) - 1
            and pieces[index - 1][0] == "change"
            and pieces[index + 1][0] == "change"
        )
        if kind == "equal" and between_changes and not old_text.strip():
            kind = "change"
        folded.append((kind, old_text, new_text))
    return folded


def _merge(pieces: list[tuple[str, str, str]]) -> list[DiffOp]:
    """Return the operations of the pieces, each stretch of changes as one delete and insert."""
    ops: list[DiffOp] = []
    deleted, inserted = "", ""
    for kind, old_text, new_text in [*pieces, ("equal", "", "")]:
        if kind == "change":
            deleted += old_text
            inserted += new_text
            continue
        if deleted:
            ops.append(DiffOp("delete", deleted))
        if inserted:
            ops.append(DiffOp("insert", inserted))
        deleted, inserted = "", ""
        if old_text:
            ops.append(DiffOp("equal", old_text))
    return ops


def side_by_side(old: str, new: str) -> list[Row]:
    """Return the rows of a two-column compare, lines aligned where they match.

    Lines that match are `equal` rows; a changed stretch pairs its old and new lines in
    order as `change` rows, each with a word diff, and the lines left over on the longer
    side become `delete` or `insert` rows.
    """
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    rows = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
                line = (DiffOp("equal", old_lines[i]),) if old_lines[i] else ()
                rows.append(Row("equal", i + 1, line, j + 1, line))
            continue
        paired = min(i2 - i1, j2 - j1)
        for offset in range(paired):
            i, j = i1 + offset, j1 + offset
            ops = word_diff(old_lines[i], new_lines[j])
            old_side = tuple(op for op in ops if op.kind != "insert")
            new_side = tuple(op for op in ops if op.kind != "delete")
            rows.append(Row("change", i + 1, old_side, j + 1, new_side))
        for i in range(i1 + paired, i2):
            line = (DiffOp("delete", old_lines[i]),) if old_lines[i] else ()
            rows.append(Row("delete", i + 1, line, None, ()))
        for j in range(j1 + paired, j2):
            line = (DiffOp("insert", new_lines[j]),) if new_lines[j] else ()
            rows.append(Row("insert", None, (), j + 1, line))
    return rows
