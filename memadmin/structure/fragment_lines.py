"""Fragment boundaries as people edit them: "fragment 3 starts at line 12".

`memadmin.core.fragments` works in character offsets; a form works in line numbers (from
1). Every split `propose_split` makes starts its fragments on lines, so nothing is lost by
editing lines. Plain Python: no Django here.
"""

import itertools

from memadmin.core.fragments import Fragment, SplitError, SplitMode, apply_boundaries, propose_split


def line_starts(text: str) -> list[int]:
    """Return the offset at which each line starts; line 1 starts at 0."""
    starts = [0]
    starts.extend(index + 1 for index, character in enumerate(text) if character == "\n")
    return starts


def line_of(text: str, offset: int) -> int:
    """Return the number of the line holding the character at `offset`."""
    return text.count("\n", 0, offset) + 1


def proposed_lines(text: str, by: SplitMode = "auto") -> list[int]:
    """Return the lines on which the proposed fragments after the first start."""
    return [line_of(text, fragment.start) for fragment in propose_split(text, by=by)[1:]]


def adjusted_lines(
    starts: list[int | None], *, merged: set[int] = frozenset(), split_at: int | None = None
) -> list[int]:
    """Return the start lines after merging and adding one, in order.

    `starts[k]` is where fragment k + 2 starts (None for a fragment merged by emptying its
    start, whose number is in `merged`); `merged` holds the numbers of fragments to fold into
    the one before them; `split_at` starts one more fragment.
    """
    kept = [line for number, line in enumerate(starts, start=2) if number not in merged]
    if split_at is not None:
        kept.append(split_at)
    return sorted(kept)


def fragments_at(text: str, lines: list[int], *, summary: str | None = None) -> list[Fragment]:
    """Return the fragments that start on these lines, after the first.

    Given the header's summary, a title heading it repeats stays out of the first fragment
    (see `apply_boundaries`).

    Raise SplitError, naming lines, when a line is outside the text, two fragments start
    on the same line, a fragment would hold only blank lines, or there are fewer than two.
    """
    starts = line_starts(text)
    count = len(starts)
    if count < 2:
        raise SplitError("This text is one line: a split needs at least two lines to start on.")
    if not lines:
        raise SplitError("A split needs at least 2 fragments: say where the second one starts.")
    for line in lines:
        if not 2 <= line <= count:
            raise SplitError(
                f"Line {line} is outside the text: a fragment starts on line 2 to {count}."
            )
    for previous, line in itertools.pairwise(lines):
        if line == previous:
            raise SplitError(f"Two fragments start on line {line}: merge one of them instead.")
    edges = [1, *lines, count + 1]
    for number, (first, after) in enumerate(itertools.pairwise(edges), start=1):
        end = starts[after - 1] if after <= count else len(text)
        if not text[starts[first - 1] : end].strip():
            raise SplitError(
                f"Fragment {number} (lines {first} to {after - 1}) would be empty: "
                "it holds only blank lines."
            )
    return apply_boundaries(text, [starts[line - 1] for line in lines], summary=summary)


def offsets_of(text: str, lines: list[int]) -> list[int]:
    """Return the character offsets at which fragments starting on these lines start."""
    starts = line_starts(text)
    return [starts[line - 1] for line in lines]
