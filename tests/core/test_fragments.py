import pytest
from hypothesis import given
from hypothesis import strategies as st

from memadmin.core.fragments import (
    Fragment,
    SplitError,
    apply_boundaries,
    boundaries_of,
    propose_split,
)

SOP = """# Release

Run this from a clean checkout.

1. Bump the version
   in pyproject.toml.
2. Tag the commit:
   - `git tag vX.Y.Z`
   - `git push --tags`
3. Repeat step 2 for the docs repository.

## Rollback
Delete the tag and re-run step 1.
"""


def texts(by: str, text: str) -> list[str]:
    return [fragment.text for fragment in propose_split(text, by=by)]


def test_paragraphs_split_at_blank_lines():
    """Paragraphs are runs of non-blank lines."""
    text = "First line\nstill first.\n\n  \nSecond.\n\n\nThird."
    assert texts("paragraphs", text) == ["First line\nstill first.", "Second.", "Third."]


def test_offsets_point_at_trimmed_spans():
    """Each fragment's offsets delimit its trimmed span in the original text."""
    text = "\n\n  alpha beta  \n\n\tgamma\n"
    fragments = propose_split(text, by="paragraphs")
    assert fragments == [Fragment("alpha beta", 4, 14), Fragment("gamma", 19, 24)]
    assert [text[f.start : f.end] for f in fragments] == ["alpha beta", "gamma"]


def test_items_keep_continuation_lines_and_nested_items():
    """A list item keeps its continuation lines and its nested items."""
    assert texts("items", SOP) == [
        "# Release\n\nRun this from a clean checkout.",
        "1. Bump the version\nin pyproject.toml.",
        "2. Tag the commit:\n- `git tag vX.Y.Z`\n- `git push --tags`",
        "3. Repeat step 2 for the docs repository.",
        "## Rollback\nDelete the tag and re-run step 1.",
    ]


def test_bullet_markers_are_dropped_and_numbers_kept():
    """A bullet item loses its marker; a numbered item keeps its step number."""
    text = "- use uv\n* pin ruff\n+ run tests\n1) first\n2. second"
    assert texts("items", text) == ["use uv", "pin ruff", "run tests", "1) first", "2. second"]


def test_items_separated_by_blank_lines_and_paragraphs_between():
    """A blank line does not end an item; an unindented paragraph after it does."""
    text = "Intro:\n\n- one\n\n  more of one\n\nOutro."
    assert texts("items", text) == ["Intro:", "one\n\nmore of one", "Outro."]


def test_lazy_continuation_line_stays_with_its_item():
    """An unindented line right under an item continues it."""
    assert texts("items", "- one\ncontinued\n- two") == ["one\ncontinued", "two"]


def test_a_list_in_paragraph_mode_keeps_its_markers():
    """A fragment holding several items is a list, and keeps every marker."""
    assert texts("paragraphs", "- a\n- b\n\n- c") == ["- a\n- b", "c"]


def test_headings_start_fragments_and_keep_their_body():
    """A heading starts a fragment that runs to the next heading, blank lines and all."""
    assert texts("headings", SOP) == [
        SOP[: SOP.index("## Rollback")].strip(),
        "## Rollback\nDelete the tag and re-run step 1.",
    ]


def test_text_before_the_first_heading_is_a_fragment():
    """Text before the first heading makes its own fragment."""
    assert texts("headings", "preamble\n# A\nbody") == ["preamble", "# A\nbody"]


def test_lone_heading_joins_the_fragment_after_it():
    """In paragraph mode a heading separated from its body by a blank line stays with it."""
    text = "# Setup\n\nInstall uv.\n\n# Usage\n\nRun it."
    assert texts("paragraphs", text) == ["# Setup\n\nInstall uv.", "# Usage\n\nRun it."]


def test_stacked_headings_stay_with_the_body_below_them():
    """Headings with no text between them all join the first fragment that has a body."""
    text = "# Guide\n\n## Install\n\nRun uv sync.\n\nThen test."
    assert texts("paragraphs", text) == ["# Guide\n\n## Install\n\nRun uv sync.", "Then test."]


def test_fenced_code_is_never_split():
    """Blank lines, items and headings inside a fenced block do not split it."""
    text = "Script:\n\n```sh\n# comment\n\n- not an item\n```\n\nAfter."
    for by in ("paragraphs", "items", "headings"):
        assert any("```sh\n# comment\n\n- not an item\n```" in t for t in texts(by, text))


def test_hash_without_space_is_not_a_heading():
    """A `#tag` line is text, not a heading."""
    assert texts("headings", "#tag one\n#tag two") == ["#tag one\n#tag two"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SOP, "headings"),
        ("Steps:\n- a\n- b\n- c", "items"),
        ("one\n\ntwo", "paragraphs"),
    ],
)
def test_auto_picks_the_first_mode_that_splits(text, expected):
    """Auto prefers headings, then items, then paragraphs."""
    assert propose_split(text) == propose_split(text, by=expected)


def test_text_without_structure_is_one_fragment():
    """A single paragraph is proposed as one fragment."""
    assert texts("auto", "  just one line  ") == ["just one line"]


def test_blank_text_gives_no_fragments():
    """Whitespace-only text has nothing to split."""
    assert propose_split(" \n\t\n") == []


def test_unknown_mode_is_refused():
    """An unknown split mode raises ValueError."""
    with pytest.raises(ValueError, match="Unknown split mode"):
        propose_split("x", by="sentences")


def test_windows_line_endings():
    """Carriage returns are whitespace, not content."""
    assert texts("items", "- a\r\n- b\r\n") == ["a", "b"]


def test_boundaries_rebuild_the_proposal():
    """The proposal's own boundaries give the proposal back."""
    fragments = propose_split(SOP, by="items")
    assert apply_boundaries(SOP, boundaries_of(fragments)) == fragments


def test_person_chosen_boundaries_split_mid_line():
    """A boundary may fall anywhere; both sides are trimmed."""
    text = "alpha beta gamma"
    assert apply_boundaries(text, [6, 11]) == [
        Fragment("alpha", 0, 5),
        Fragment("beta", 6, 10),
        Fragment("gamma", 11, 16),
    ]


@pytest.mark.parametrize(
    ("boundaries", "message"),
    [
        ([], "at least 2 fragments"),
        ([8, 3], "3 comes after 8"),
        ([3, 3], "3 appears twice"),
        ([0], "Boundary 0 is outside the text"),
        ([14], "Boundary 14 is outside the text"),
        ([-2], "Boundary -2 is outside the text"),
        ([6, 8], r"Fragment 2 \(characters 6 to 8\) would be empty"),
    ],
)
def test_invalid_boundaries_are_refused(boundaries, message):
    """Boundaries that do not make two or more non-empty fragments raise SplitError."""
    with pytest.raises(SplitError, match=message):
        apply_boundaries("alpha   gamma", boundaries)  # 13 characters


def test_split_error_is_a_value_error():
    """Callers that catch ValueError also catch SplitError."""
    assert issubclass(SplitError, ValueError)


# Markdown-ish text: markers, headings, fences, indents and blank lines, mixed at random.
markdownish = st.lists(
    st.sampled_from(
        [
            *("- ", "* ", "+ ", "1. ", "2) ", "# ", "## ", "```", "~~~"),
            *("  ", "\t", "\n", "\n\n", "\r\n", "\u3000", "\x0c"),
            *("word", "x", "-", "#", "é", "12"),
        ]
    ),
    max_size=40,
).map("".join)
any_text = st.one_of(markdownish, st.text(max_size=60))
modes = st.sampled_from(["auto", "paragraphs", "items", "headings"])


def non_whitespace(text: str) -> str:
    return "".join(text.split())


@given(any_text, modes)
def test_fragments_are_never_empty(text, by):
    """No proposed fragment is empty or whitespace only."""
    for fragment in propose_split(text, by=by):
        assert fragment.text.strip()
        assert fragment.text == fragment.text.strip()


@given(any_text, modes)
def test_fragments_cover_the_content_in_order(text, by):
    """Spans are trimmed, ordered, disjoint, and only whitespace lies outside them."""
    fragments = propose_split(text, by=by)
    position = 0
    for fragment in fragments:
        span = text[fragment.start : fragment.end]
        assert span and span == span.strip()
        assert not text[position : fragment.start].strip()
        position = fragment.end
    assert not text[position:].strip()


@given(any_text, modes)
def test_cleaning_only_drops_a_leading_marker_and_whitespace(text, by):
    """A fragment's text keeps all of its span's content, bar a leading bullet."""
    for fragment in propose_split(text, by=by):
        content = non_whitespace(text[fragment.start : fragment.end])
        assert content.endswith(non_whitespace(fragment.text))
        assert len(content) - len(non_whitespace(fragment.text)) <= 1


@given(any_text, modes)
def test_boundaries_round_trip(text, by):
    """Applying the proposal's boundaries gives the proposal back."""
    fragments = propose_split(text, by=by)
    if len(fragments) >= 2:
        assert apply_boundaries(text, boundaries_of(fragments)) == fragments


@given(st.text(max_size=40), st.lists(st.integers(-5, 45), max_size=5))
def test_applied_boundaries_are_valid_or_refused(text, boundaries):
    """Any boundaries give non-empty, in-order fragments or a SplitError."""
    try:
        fragments = apply_boundaries(text, boundaries)
    except SplitError:
        return
    assert len(fragments) == len(boundaries) + 1
    assert all(fragment.text.strip() for fragment in fragments)
    assert non_whitespace("".join(text[f.start : f.end] for f in fragments)) == non_whitespace(text)


@pytest.mark.parametrize("by", ["auto", "paragraphs", "items", "headings"])
def test_a_code_fence_that_never_closes_runs_to_the_end(by):
    """A fence never closed keeps everything after it, blank lines and markers, in its block."""
    block = "```\ncode\n\n- not an item\n\n# not a heading\n\nstill code"
    expected = [f"Intro.\n\n{block}"] if by == "headings" else ["Intro.", block]
    assert texts(by, "Intro.\n\n" + block) == expected


@pytest.mark.parametrize(
    ("closing", "closes"),
    [
        ("```", True),
        ("````", True),  # a longer fence of the same character closes
        ("   ```  ", True),  # up to three spaces before, spaces after
        ("~~~", False),  # the other character does not
        ("``", False),  # neither does a shorter fence (not a fence at all)
        ("``` sh", False),  # nor one with text after it
    ],
)
def test_what_closes_a_code_fence(closing, closes):
    """A block closes at a fence of its character, at least as long, with nothing after it;
    after it, the text that follows is a fragment of its own."""
    text = f"Intro.\n\n```\ncode\n\n{closing}\n\nAfter."
    if closes:
        assert texts("paragraphs", text) == ["Intro.", f"```\ncode\n\n{closing.rstrip()}", "After."]
    else:
        assert texts("paragraphs", text) == ["Intro.", f"```\ncode\n\n{closing}\n\nAfter."]


def test_a_longer_opening_fence_needs_as_long_a_closing_one():
    """A block opened by four backticks is not closed by three."""
    text = "Intro.\n\n````\ncode\n\n```\n\nAfter.\n\n````\n\nEnd."
    assert texts("paragraphs", text) == ["Intro.", "````\ncode\n\n```\n\nAfter.\n\n````", "End."]


def test_blank_lines_before_the_first_heading_make_no_fragment():
    """Split by headings, text that opens with blank lines starts at its first heading."""
    assert texts("headings", "\n\n# Title\nbody\n# Two\nmore") == ["# Title\nbody", "# Two\nmore"]


def test_a_boundary_may_be_the_second_character():
    """Offset 1 is inside the text: the first fragment is then one character long."""
    assert [f.text for f in apply_boundaries("a bc", [1])] == ["a", "bc"]


def test_no_boundary_is_refused_with_the_sentence_shown():
    """A split without boundaries asks for the second fragment's start."""
    with pytest.raises(SplitError) as caught:
        apply_boundaries("a b", [])
    assert str(caught.value) == (
        "A split needs at least 2 fragments: mark where the second one starts."
    )


@pytest.mark.parametrize("boundary", [0, 4, 5])
def test_a_boundary_outside_the_text_names_the_range(boundary):
    """Offsets from 1 to the text's length minus one are inside; others are refused."""
    with pytest.raises(SplitError) as caught:
        apply_boundaries("a bc", [boundary])
    assert str(caught.value) == (
        f"Boundary {boundary} is outside the text: it must lie between 1 and 3."
    )


def test_the_last_character_may_start_a_fragment():
    """The highest boundary is the text's length minus one."""
    assert [f.text for f in apply_boundaries("ab c", [3])] == ["ab", "c"]


@pytest.mark.parametrize(
    ("by", "text", "expected"),
    [
        # A later item as far left as the first makes a list, kept as written...
        ("paragraphs", "- one\n  continued\n- two", ["- one\n  continued\n- two"]),
        ("paragraphs", "  - one\n  - two", ["- one\n  - two"]),
        # ...but only spaces and tabs indent: after other characters a marker is text.
        ("paragraphs", "- one\nX- two", ["one\nX- two"]),
        ("paragraphs", "- one\n\u00a0- two", ["one\n\u00a0- two"]),
        ("items", "- one\n\u00a0- two", ["one\n\u00a0- two"]),
        ("items", "- one\nX- two", ["one\nX- two"]),
        # ...also where that marker stands left of an indented first item.
        ("items", "  - one\nX- two", ["one\nX- two"]),
        ("paragraphs", "  - one\nX- two", ["one\nX- two"]),
        ("items", "  - one\n\u00a0- two", ["one\n\u00a0- two"]),
        ("paragraphs", "  - one\n\u00a0- two", ["one\n\u00a0- two"]),
    ],
)
def test_what_makes_a_list_item(by, text, expected):
    """A marker starts an item only after spaces or tabs; a single item loses its marker."""
    assert texts(by, text) == expected


def test_the_proposed_summary_is_the_title_line_or_the_first_sentence():
    """A heading or a short title line is proposed; else the first sentence; never empty."""
    from memadmin.core.fragments import proposed_summary

    assert proposed_summary("# Release SOP\n1. Drain.\n2. Deploy.") == "Release SOP"
    assert proposed_summary("Restore drill:\n- copy\n- verify") == "Restore drill"
    assert proposed_summary("Backups run nightly. They are kept a week.") == "Backups run nightly."
    assert proposed_summary("   ") == "Summary of a fragmented memory"


FAILOVER = """# Failover of the primary database

1. Stop writes: set the service read-only.
2. Promote the replica with pg_ctl promote.
3. Point the service at the new primary and lift read-only."""


def test_a_title_heading_the_summary_repeats_stays_out_of_the_first_fragment():
    """The heading becomes the header's summary, so detail 1 is the first step alone."""
    boundaries = boundaries_of(propose_split(FAILOVER))
    fragments = apply_boundaries(FAILOVER, boundaries, summary="Failover of the primary database")
    assert [fragment.text for fragment in fragments] == [
        "1. Stop writes: set the service read-only.",
        "2. Promote the replica with pg_ctl promote.",
        "3. Point the service at the new primary and lift read-only.",
    ]
    assert FAILOVER[: fragments[0].start].strip() == "# Failover of the primary database"


@pytest.mark.parametrize(
    "summary", ["# failover of the primary database:", "Failover of the primary database\nmore"]
)
def test_the_title_matches_in_any_case_with_marks_and_on_the_summary_first_line(summary):
    fragments = apply_boundaries(FAILOVER, boundaries_of(propose_split(FAILOVER)), summary=summary)
    assert fragments[0].text.startswith("1. Stop writes")


@pytest.mark.parametrize("summary", [None, "Failover runbook", "Failover of the primary"])
def test_the_heading_stays_in_detail_1_when_the_summary_says_something_else(summary):
    """Only a summary that repeats the heading takes it: otherwise no line would be kept."""
    fragments = apply_boundaries(FAILOVER, boundaries_of(propose_split(FAILOVER)), summary=summary)
    assert fragments[0].text.startswith("# Failover of the primary database\n\n1. Stop writes")


def test_a_first_fragment_that_is_only_the_title_keeps_it():
    """Boundaries that leave the heading alone before fragment 2: it stays, not emptied."""
    text = "# Title\n\n## One\nbody one\n## Two\nbody two"
    fragments = apply_boundaries(text, [text.index("## One")], summary="Title")
    assert fragments[0].text == "# Title"


def test_a_title_that_is_not_a_heading_is_not_left_out():
    """A plain first line (no `#`) stays in detail 1 even when the summary repeats it."""
    text = FAILOVER.replace("# Failover", "Failover", 1)
    fragments = apply_boundaries(
        text, boundaries_of(propose_split(text)), summary="Failover of the primary database"
    )
    assert fragments[0].text.startswith("Failover of the primary database")


def test_a_title_over_the_first_section_joins_it_when_splitting_by_headings():
    """ "# Title" followed at once by "## A": the title is no fragment of its own, and with a
    summary that repeats it, detail 1 is section A alone."""
    text = "# Title\n\n## One\nbody one\n## Two\nbody two"
    assert texts("headings", text) == ["# Title\n\n## One\nbody one", "## Two\nbody two"]
    fragments = apply_boundaries(text, boundaries_of(propose_split(text)), summary="Title")
    assert [fragment.text for fragment in fragments] == ["## One\nbody one", "## Two\nbody two"]
