import itertools

from hypothesis import given
from hypothesis import strategies as st

from memadmin.core.worddiff import DiffOp, Row, side_by_side, tokenize, word_diff


def test_tokens_are_words_punctuation_and_whitespace_runs():
    """A text splits into words, single punctuation marks and whitespace runs."""
    assert tokenize("Use  scripts/release.sh\n") == [
        "Use",
        "  ",
        "scripts",
        "/",
        "release",
        ".",
        "sh",
        "\n",
    ]


def test_identical_texts_are_one_equal_run():
    """Nothing changed is one equal operation."""
    assert word_diff("same words", "same words") == [DiffOp("equal", "same words")]


def test_empty_texts_give_no_operations():
    """Two empty texts have nothing to show."""
    assert word_diff("", "") == []


def test_a_changed_word():
    """One replaced word is a deletion followed by an insertion."""
    assert word_diff("budget is 4000 tokens", "budget is 6000 tokens") == [
        DiffOp("equal", "budget is "),
        DiffOp("delete", "4000"),
        DiffOp("insert", "6000"),
        DiffOp("equal", " tokens"),
    ]


def test_inserted_and_deleted_words():
    """Words only in one version are inserts or deletes."""
    assert word_diff("run the tests", "always run tests") == [
        DiffOp("insert", "always "),
        DiffOp("equal", "run "),
        DiffOp("delete", "the "),
        DiffOp("equal", "tests"),
    ]


def test_a_rewritten_phrase_reads_as_one_change():
    """Whitespace shared between changed words does not break the change apart."""
    assert word_diff("keep alpha beta gamma end", "keep one two three end") == [
        DiffOp("equal", "keep "),
        DiffOp("delete", "alpha beta gamma"),
        DiffOp("insert", "one two three"),
        DiffOp("equal", " end"),
    ]


def test_side_by_side_aligns_equal_lines():
    """Matching lines sit on one row with both line numbers."""
    rows = side_by_side("a\nb\nc", "a\nB\nc\nd")
    assert rows == [
        Row("equal", 1, (DiffOp("equal", "a"),), 1, (DiffOp("equal", "a"),)),
        Row("change", 2, (DiffOp("delete", "b"),), 2, (DiffOp("insert", "B"),)),
        Row("equal", 3, (DiffOp("equal", "c"),), 3, (DiffOp("equal", "c"),)),
        Row("insert", None, (), 4, (DiffOp("insert", "d"),)),
    ]


def test_side_by_side_changed_line_carries_a_word_diff():
    """A changed line shows old words deleted on the left and new words inserted on the right."""
    [row] = side_by_side("set budget to 4000", "set budget to 6000")
    assert row.kind == "change"
    assert row.old == (DiffOp("equal", "set budget to "), DiffOp("delete", "4000"))
    assert row.new == (DiffOp("equal", "set budget to "), DiffOp("insert", "6000"))


def test_side_by_side_removed_lines():
    """Lines only in the old version are delete rows with no new side."""
    rows = side_by_side("keep\ndrop one\ndrop two", "keep")
    assert [(row.kind, row.old_number, row.new_number) for row in rows] == [
        ("equal", 1, 1),
        ("delete", 2, None),
        ("delete", 3, None),
    ]


def test_side_by_side_blank_lines_have_no_operations():
    """An empty line is a row with nothing to show."""
    assert side_by_side("a\n\nb", "a\n\nb")[1] == Row("equal", 2, (), 2, ())


def test_side_by_side_of_nothing():
    """Two empty texts give no rows."""
    assert side_by_side("", "") == []


texts = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(["a", "b", "cc", " ", "  ", "\n", ".", "é", "1"]), max_size=30).map(
        "".join
    ),
)


@given(texts, texts)
def test_word_diff_rebuilds_both_versions(old, new):
    """Equal and delete runs join to the old text; equal and insert runs to the new."""
    ops = word_diff(old, new)
    assert "".join(op.text for op in ops if op.kind != "insert") == old
    assert "".join(op.text for op in ops if op.kind != "delete") == new
    assert all(op.text for op in ops)
    for before, after in itertools.pairwise(ops):
        assert before.kind != after.kind
        assert (before.kind, after.kind) != ("insert", "delete")


@given(texts, texts)
def test_side_by_side_rebuilds_both_versions(old, new):
    """Each column, read down, is that version's lines, numbered from 1."""
    rows = side_by_side(old, new)
    old_rows = [row for row in rows if row.old_number is not None]
    new_rows = [row for row in rows if row.new_number is not None]
    assert [row.old_number for row in old_rows] == list(range(1, len(old.splitlines()) + 1))
    assert [row.new_number for row in new_rows] == list(range(1, len(new.splitlines()) + 1))
    assert ["".join(op.text for op in row.old) for row in old_rows] == old.splitlines()
    assert ["".join(op.text for op in row.new) for row in new_rows] == new.splitlines()
    assert all(op.kind != "insert" for row in rows for op in row.old)
    assert all(op.kind != "delete" for row in rows for op in row.new)


def test_a_long_text_of_repeated_words_still_matches_them():
    """Over 200 tokens, a word repeated throughout still counts as shared (no auto-junk)."""
    body = "ok " * 120
    assert len(tokenize("first " + body)) > 200
    assert word_diff("first " + body, "second " + body) == [
        DiffOp("delete", "first"),
        DiffOp("insert", "second"),
        DiffOp("equal", " " + body),
    ]


def test_side_by_side_of_many_repeated_lines_keeps_them_equal():
    """Over 200 lines, a line repeated throughout still aligns as equal rows (no auto-junk)."""
    old = "\n".join(["first", *["same"] * 210])
    new = "\n".join(["second", *["same"] * 210])
    rows = side_by_side(old, new)
    assert rows[0] == Row(
        "change", 1, (DiffOp("delete", "first"),), 1, (DiffOp("insert", "second"),)
    )
    assert rows[1:] == [
        Row("equal", n, (DiffOp("equal", "same"),), n, (DiffOp("equal", "same"),))
        for n in range(2, 212)
    ]


def test_leading_whitespace_before_a_change_stays_equal():
    """White space at the start, before the only change, is shared, not folded into it."""
    assert word_diff(" a", " b") == [
        DiffOp("equal", " "),
        DiffOp("delete", "a"),
        DiffOp("insert", "b"),
    ]


def test_lines_left_over_on_one_side_carry_their_text_and_blank_ones_nothing():
    """A deleted or inserted line is one delete or insert of its text; a blank one has none."""
    assert side_by_side("keep\ngone\n\nalso", "keep") == [
        Row("equal", 1, (DiffOp("equal", "keep"),), 1, (DiffOp("equal", "keep"),)),
        Row("delete", 2, (DiffOp("delete", "gone"),), None, ()),
        Row("delete", 3, (), None, ()),
        Row("delete", 4, (DiffOp("delete", "also"),), None, ()),
    ]
    assert side_by_side("keep", "keep\nnew\n\nmore")[1:] == [
        Row("insert", None, (), 2, (DiffOp("insert", "new"),)),
        Row("insert", None, (), 3, ()),
        Row("insert", None, (), 4, (DiffOp("insert", "more"),)),
    ]


def test_two_changed_words_with_only_a_space_between_are_one_change():
    """A space alone between the first and the last change is folded into one change."""
    assert word_diff("a b", "c d") == [DiffOp("delete", "a b"), DiffOp("insert", "c d")]
