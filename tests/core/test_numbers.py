"""Strict reading of ids and numbers: ASCII digits only, within the database's integers."""

import pytest

from memadmin.core.numbers import BIGINT_MAX, ids_in, parse_id, parse_page, parse_whole

NOT_NUMBERS = [
    "²",  # str.isdigit() says yes, int() says no
    "①",
    "٣",  # int() reads it as 3
    "\uff11",  # a full-width 1, which int() also reads
    " 1",
    "1 ",
    "+1",
    "1.5",
    "1e3",
    "0x10",
    "abc",
    "",
    "\x00",
    "1\x00",
    "-",
    None,
    3,
]


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_anything_but_ascii_digits_is_not_a_number(text):
    """Other scripts' digits, signs, spaces, fractions and non-text give None."""
    assert parse_whole(text) is None
    assert parse_id(text) is None


def test_ascii_digits_are_read_within_the_widest_column():
    """Numbers up to the 64-bit integer are read; one past it is not."""
    assert parse_whole("0") == 0
    assert parse_whole("-12") == -12
    assert parse_whole(str(BIGINT_MAX)) == BIGINT_MAX
    assert parse_whole(str(BIGINT_MAX + 1)) is None
    assert parse_whole("99999999999999999999999") is None
    assert parse_whole("9" * 5000) is None


def test_an_id_is_positive_and_a_range_can_be_narrowed():
    """Ids start at 1; a caller's bounds are kept."""
    assert parse_id("0") is None and parse_id("-1") is None and parse_id("7") == 7
    assert parse_whole("101", minimum=1, maximum=100) is None
    assert parse_whole("100", minimum=1, maximum=100) == 100


def test_a_page_is_1_for_anything_that_is_not_a_positive_number():
    """Page links fall back to the first page."""
    assert [parse_page(v) for v in ("3", "0", "-2", "²", "", None, "9" * 30)] == [
        3,
        1,
        1,
        1,
        1,
        1,
        1,
    ]


def test_ids_in_keeps_the_ids_in_order_and_leaves_out_the_rest():
    """A list of query values gives its ids, the others dropped."""
    assert ids_in(["3", "²", "1", "abc", "3", "99999999999999999999999"]) == [3, 1, 3]
