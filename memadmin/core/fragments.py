"""Propose how to split a long memory into detail fragments (Proposal 3 of the proposal).

A split is a list of `Fragment`s. Each one's `start` and `end` are character offsets into
the original text, and `text[start:end]` is the fragment's span: it begins and ends on a
non-whitespace character, spans never overlap, and only whitespace lies between them, so
together they cover every non-whitespace character of the text, in order; with one
exception, a title heading that the header's summary repeats, which lies before the first
span (see `apply_boundaries`): the header holds it.

`Fragment.text` is the detail as it would be saved: the span, trimmed, with one cleaning
rule for a fragment that is a single list item: its continuation lines lose the indentation
that belonged to the item, and a bullet marker (`-`, `*` or `+`) is dropped, because it
says nothing the detail needs. Numbered markers (`1.`, `2)`) are kept, because a step's number is
meaningful: the details of an SOP refer to each other by it ("repeat step 2"), and a person
reading one detail alone still sees where it stands. Headings are kept as the first line of
their fragment: they are the detail's title.

Fenced code blocks (``` or ~~~) are opaque: blank lines, list markers and `#` lines inside
them never split anything.
"""

import itertools
import re
import textwrap
from dataclasses import dataclass
from typing import Literal

SplitMode = Literal["auto", "paragraphs", "items", "headings"]

_BULLET = re.compile(r"([-*+])[ \t]+(?=\S)")
_NUMBERED = re.compile(r"\d{1,9}[.)](?:[ \t]+(?=\S)|$)")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")

LONG_MEMORY_CHARACTERS = 280  # a memory this long, with some structure, is worth fragmenting


class SplitError(ValueError):
    """A set of boundaries that does not make a valid split."""


@dataclass(frozen=True, slots=True)
class Fragment:
    """One proposed detail: its cleaned text and the span it came from."""

    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int
    indent: int
    kind: Literal["blank", "heading", "item", "text", "code"]


def propose_split(text: str, *, by: SplitMode = "auto") -> list[Fragment]:
    """Return the fragments the text falls into, split the way `by` names.

    `paragraphs` splits at blank lines; `items` starts a fragment at each list item (with
    its continuation lines and nested items) and treats other text as paragraphs;
    `headings` starts a fragment at each markdown heading, which keeps its whole body. In
    every mode a heading standing alone (a title over the first section's heading too) joins
    the fragment after it. `auto` uses
    the first of headings, items and paragraphs that gives two fragments or more. Text
    with no structure gives one fragment; blank text gives none.
    """
    if by not in ("auto", "paragraphs", "items", "headings"):
        raise ValueError(f"Unknown split mode {by!r}: use auto, paragraphs, items or headings.")
    lines = _classify(text)
    for mode in ("headings", "items", "paragraphs") if by == "auto" else (by,):
        spans = _spans(text, lines, _starts(lines, mode))
        if len(spans) >= 2:
            break
    return [_fragment(text, start, end) for start, end in spans]


def is_fragment_candidate(text: str) -> bool:
    """Return True for a text long enough, and structured enough, to fragment."""
    return len(text) >= LONG_MEMORY_CHARACTERS and len(propose_split(text)) >= 2


def apply_boundaries(
    text: str, boundaries: list[int], *, summary: str | None = None
) -> list[Fragment]:
    """Return the fragments that start at the given offsets, after the first at offset 0.

    Each boundary is a character offset strictly inside the text where a new fragment
    starts; `boundaries_of(propose_split(text))` gives the proposal's own. Raise SplitError
    when the boundaries are not strictly increasing, fall outside the text, leave a
    fragment with nothing but whitespace, or make fewer than two fragments.

    Given the header's `summary`, a title heading the text opens with ("# Failover of the
    primary database") that the summary repeats is left out of the first fragment, which
    then starts on the line after it: the heading lives in the header, not in a detail too
    (`title_heading_end`). A first fragment holding nothing but that heading keeps it.
    """
    if not boundaries:
        raise SplitError("A split needs at least 2 fragments: mark where the second one starts.")
    for previous, boundary in itertools.pairwise(boundaries):
        if boundary <= previous:
            problem = "appears twice" if boundary == previous else f"comes after {previous}"
            raise SplitError(
                f"Boundary {boundary} {problem}: boundaries must be strictly increasing."
            )
    for boundary in boundaries:
        if not 0 < boundary < len(text):
            raise SplitError(
                f"Boundary {boundary} is outside the text: it must lie between 1 and "
                f"{len(text) - 1}."
            )
    edges = [0, *boundaries, len(text)]
    fragments = []
    for number, (start, end) in enumerate(itertools.pairwise(edges), start=1):
        span = _trim(text, start, end)
        if span is None:
            raise SplitError(
                f"Fragment {number} (characters {start} to {end}) would be empty: "
                f"it holds only whitespace."
            )
        fragments.append(_fragment(text, *span))
    after_title = title_heading_end(text, summary) if summary is not None else None
    if after_title is not None and after_title < fragments[0].end:
        span = _trim(text, after_title, fragments[0].end)
        if span is not None:
            fragments[0] = _fragment(text, *span)
    return fragments


def _title(line: str) -> str:
    """Return a title line's words: without heading marks, a closing colon, or spaces."""
    return line.strip().lstrip("#").strip().rstrip(":").strip()


def title_heading_end(text: str, summary: str) -> int | None:
    """Return the offset just after the title heading the text opens with, when the summary
    says the same (its first line, in any case and with or without the `#` marks, or opens
    with it before " (" or ":", as a drafted header does); else None.

    Only the text's first non-blank line can be its title: a markdown heading, or a plain
    line as `proposed_summary` takes one (more lines follow, and it does not end with a full
    stop: "Edge cache settings, as tuned after the October load test:").
    """
    lines = _classify(text)
    written = [line for line in lines if line.kind != "blank"]
    first = written[0] if written else None
    if first is None or not (first.kind == "heading" or _title_line(text, first, written)):
        return None
    wanted = _title(summary.strip().split("\n", 1)[0]).casefold()
    heading = _title(text[first.start : first.end]).casefold()
    # A drafted header opens with the title and goes on: "Failover … (5 steps): Page…".
    if not heading or not (wanted == heading or wanted.startswith((f"{heading} (", f"{heading}:"))):
        return None
    return first.end


def _title_line(text: str, first, written: list) -> bool:
    line = text[first.start : first.end].strip()
    return first.kind == "text" and len(written) > 1 and not line.endswith(".")


def boundaries_of(fragments: list[Fragment]) -> list[int]:
    """Return the boundaries that `apply_boundaries` needs to rebuild these fragments."""
    return [fragment.start for fragment in fragments[1:]]


def _classify(text: str) -> list[_Line]:
    """Return the text's lines (split at newlines only), each with its structural kind."""
    lines = []
    fence = None
    offset = 0
    for raw in text.split("\n"):
        start, end = offset, offset + len(raw)
        offset = end + 1
        body = raw.lstrip(" \t")
        indent = len(raw[: len(raw) - len(body)].expandtabs(4))
        if fence is not None:
            kind = "code"
            if _closes(raw, fence):
                fence = None
        elif not raw.strip():
            kind = "blank"
        elif opening := _FENCE.match(raw):
            kind = "text"
            fence = opening.group(1)
        elif _HEADING.match(raw):
            kind = "heading"
        elif _BULLET.match(body) or _NUMBERED.match(body):
            kind = "item"
        else:
            kind = "text"
        lines.append(_Line(start, end, indent, kind))
    return lines


def _starts(lines: list[_Line], mode: str) -> list[int]:
    """Return the indexes of the lines that start a fragment in this split mode."""
    if mode == "headings":
        starts = _by_headings(lines)
    else:
        starts = _by_items(lines) if mode == "items" else _by_paragraphs(lines)
    return _attach_lone_headings(lines, starts)


def _closes(line: str, fence: str) -> bool:
    """Say whether the line closes a code block opened by this fence."""
    closing = _FENCE.match(line)
    return bool(
        closing
        and closing.group(1)[0] == fence[0]
        and len(closing.group(1)) >= len(fence)
        and not line[closing.end() :].strip()
    )


def _by_paragraphs(lines: list[_Line]) -> list[int]:
    """Return the indexes of lines that start a paragraph (a run of non-blank lines)."""
    return [
        index
        for index, line in enumerate(lines)
        if line.kind != "blank" and (index == 0 or lines[index - 1].kind == "blank")
    ]


def _by_items(lines: list[_Line]) -> list[int]:
    """Return the indexes of lines that start a list item or a paragraph outside a list."""
    starts = []
    item_indent = None  # the indent of the item being read, None outside a list
    after_blank = True
    for index, line in enumerate(lines):
        if line.kind == "blank":
            after_blank = True
            continue
        if line.kind == "item":
            if item_indent is None or line.indent <= item_indent:
                starts.append(index)
                item_indent = line.indent
        else:
            outside_item = item_indent is None or line.indent <= item_indent
            if line.kind == "heading" or (line.kind == "text" and after_blank and outside_item):
                starts.append(index)
                item_indent = None
        after_blank = False
    return starts


def _by_headings(lines: list[_Line]) -> list[int]:
    """Return the indexes of the first line and of every heading."""
    first = next((index for index, line in enumerate(lines) if line.kind != "blank"), None)
    starts = [index for index, line in enumerate(lines) if line.kind == "heading"]
    if first is not None and (not starts or starts[0] != first):
        starts.insert(0, first)
    return starts


def _attach_lone_headings(lines: list[_Line], starts: list[int]) -> list[int]:
    """Drop each start that follows a fragment holding nothing but headings."""
    kept: list[int] = []
    for start in starts:
        previous = lines[kept[-1] : start] if kept else []
        if previous and all(line.kind in ("heading", "blank") for line in previous):
            continue
        kept.append(start)
    return kept


def _spans(text: str, lines: list[_Line], starts: list[int]) -> list[tuple[int, int]]:
    """Return the trimmed (start, end) offsets of the fragments starting at these lines."""
    ends = [*starts[1:], len(lines)] if starts else []
    spans = (
        _trim(text, lines[first].start, lines[last - 1].end)
        for first, last in zip(starts, ends, strict=True)
    )
    return [span for span in spans if span is not None]


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Return the offsets of text[start:end] without its surrounding whitespace, if any is left."""
    chunk = text[start:end]
    if not chunk.strip():
        return None
    return start + len(chunk) - len(chunk.lstrip()), end - len(chunk) + len(chunk.rstrip())


def _fragment(text: str, start: int, end: int) -> Fragment:
    """Return the fragment of a trimmed span, cleaned if it is a single list item."""
    span = text[start:end]
    line_start = text.rfind("\n", 0, start) + 1
    indent = len(text[line_start:start].expandtabs(4))
    first, _, rest = span.partition("\n")
    numbered = _NUMBERED.match(first)
    bullet = _BULLET.match(first)
    if not (numbered or bullet) or _has_sibling_item(rest, indent):
        return Fragment(span, start, end)
    cleaned = first if numbered else first[bullet.end() :]
    if rest:
        cleaned += "\n" + textwrap.dedent(rest)
    return Fragment(cleaned.strip(), start, end)


def _has_sibling_item(rest: str, indent: int) -> bool:
    """Say whether a later line is a list item as far left as the first one (a list)."""
    for line in rest.split("\n"):
        body = line.lstrip(" \t")
        own_indent = len(line[: len(line) - len(body)].expandtabs(4))
        if own_indent <= indent and (_BULLET.match(body) or _NUMBERED.match(body)):
            return True
    return False


SUMMARY_CHARACTERS = 200
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def proposed_summary(text: str) -> str:
    """Return a header summary to propose for a long text: never empty.

    The title line when the text opens with one (a heading, or a short first line without a
    full stop followed by more lines), else the first sentence; cut to 200 characters.
    """
    lines = [line.strip() for line in text.strip().splitlines()]
    first = lines[0] if lines else ""
    heading = _title(first)
    if heading and len(lines) > 1 and (first.startswith("#") or not first.endswith(".")):
        summary = heading
    else:
        flat = " ".join(line for line in lines if line)
        summary = _SENTENCE_END.split(flat, maxsplit=1)[0] if flat else ""
    summary = summary[:SUMMARY_CHARACTERS].strip()
    return summary or "Summary of a fragmented memory"
