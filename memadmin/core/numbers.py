"""Read ids and whole numbers from text strictly: ASCII digits only, within the database's integers.

URLs and forms send text. `str.isdigit()` accepts "²" and "①", which `int()` then refuses;
`int()` itself accepts "٣", full-width digits, " 1" and "+1"; and a number may be wider than any integer
column, which SQLite and PostgreSQL refuse with an error. Every id and number a view reads
from a request goes through these functions (directly, or through the form fields of
`memadmin.web.number_fields`), which answer None for anything else, so the view refuses it
(400, 404) or falls back, instead of failing.
"""

import re
from collections.abc import Iterable

BIGINT_MAX = 2**63 - 1
"""The widest integer column on both engines: ids (BigAutoField) and millisecond times."""
BIGINT_MIN = -(2**63)
INTEGER_MAX = 2**31 - 1
"""PostgreSQL's `integer`: positive integer fields such as a category's revision."""

# [0-9], not \d: in a str pattern \d matches every Unicode digit.
_WHOLE = re.compile(r"-?[0-9]{1,19}")


def parse_whole(
    text: object, *, minimum: int = BIGINT_MIN, maximum: int = BIGINT_MAX
) -> int | None:
    """Return the whole number `text` spells in ASCII digits, or None.

    None for anything else: empty, spaces, a sign other than a leading minus, a fraction,
    other scripts' digits, or a number outside `minimum` to `maximum`.
    """
    if not isinstance(text, str) or not _WHOLE.fullmatch(text):
        return None
    number = int(text)
    return number if minimum <= number <= maximum else None


def parse_id(text: object) -> int | None:
    """Return the row id `text` spells (1 to the widest id the database holds), or None."""
    return parse_whole(text, minimum=1)


def parse_page(text: object) -> int:
    """Return the page number `text` spells, 1 for anything that is not a positive number."""
    return parse_whole(text, minimum=1, maximum=INTEGER_MAX) or 1


def ids_in(values: Iterable[object]) -> list[int]:
    """Return the ids among `values`, in order, leaving out what is not an id."""
    return [number for value in values if (number := parse_id(value)) is not None]
