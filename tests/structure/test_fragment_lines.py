"""Fragment boundaries in line numbers: proposals, merges, moves and their refusals."""

import pytest

from memadmin.core.fragments import SplitError
from memadmin.structure.fragment_lines import (
    adjusted_lines,
    fragments_at,
    line_of,
    line_starts,
    offsets_of,
    proposed_lines,
)

SOP = "Release SOP\n\n1. Build it.\n2. Tag it.\n\n3. Announce it."


def test_line_starts_and_line_of_agree():
    """Each line's start offset lies on that line."""
    starts = line_starts(SOP)
    assert [line_of(SOP, offset) for offset in starts] == list(range(1, len(starts) + 1))


def test_the_proposal_starts_fragments_on_lines():
    """A numbered list splits at its items."""
    assert proposed_lines(SOP, "items") == [3, 4, 6]
    assert [f.text for f in fragments_at(SOP, [3, 4, 6])] == [
        "Release SOP",
        "1. Build it.",
        "2. Tag it.",
        "3. Announce it.",
    ]


def test_merging_folds_a_fragment_into_the_one_before():
    """Merging fragment 3 drops its start line; a new start is added in order."""
    assert adjusted_lines([3, 4, 6], merged={3}) == [3, 6]
    assert adjusted_lines([3, 6], split_at=4) == [3, 4, 6]


def test_moved_lines_are_put_in_order():
    """Starts given out of order are sorted."""
    assert adjusted_lines([6, 3]) == [3, 6]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "at least 2 fragments"),
        ([1], "Line 1 is outside the text"),
        ([99], "Line 99 is outside the text"),
        ([3, 3], "Two fragments start on line 3"),
    ],
)
def test_bad_lines_are_refused_with_line_numbers(lines, message):
    """Every refusal names lines, not characters."""
    with pytest.raises(SplitError, match=message):
        fragments_at(SOP, lines)


def test_a_first_fragment_of_blank_lines_is_refused():
    """Text that opens with blank lines cannot make them a fragment of their own."""
    with pytest.raises(SplitError, match=r"Fragment 1 \(lines 1 to 2\) would be empty"):
        fragments_at("\n\nText.\nMore.", [3])


def test_an_empty_fragment_between_blank_lines_is_refused():
    """A fragment of nothing but blank lines is refused, naming its lines."""
    with pytest.raises(SplitError, match=r"Fragment 2 \(lines 2 to 2\) would be empty"):
        fragments_at(SOP, [2, 3])


def test_offsets_are_the_line_starts():
    """Lines turn into the offsets the core splits at."""
    assert offsets_of(SOP, [3, 6]) == [13, SOP.index("3.")]


@pytest.mark.parametrize("lines", [[], [2], [999]])
def test_a_one_line_text_cannot_be_split(lines):
    """A text of one line has nowhere for a second fragment to start, and says so."""
    with pytest.raises(SplitError, match="This text is one line"):
        fragments_at("A single line of text, however long it is.", lines)
