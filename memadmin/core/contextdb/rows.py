"""Turn the rows of one upstream table into records, collecting every bad value on the way."""

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from operator import itemgetter

from memadmin.core.contextdb.records import RowProblem
from memadmin.core.contextdb.rules import INT_LIST, OBJECT, ColumnRule, describe, select_checked


@dataclass(frozen=True)
class TableSpec:
    """A table read into records: its column rules, record class and row order."""

    table: str
    rules: tuple[ColumnRule, ...]
    record: type
    order_by: str

    @property
    def attributes(self) -> tuple[str, ...]:
        """Return the record attributes, in rule order."""
        return tuple(rule.attribute for rule in self.rules)


class MisencodedText(str):
    """Text that was not valid UTF-8, decoded with replacement characters."""


def decode_tolerantly(data: bytes) -> str:
    """Decode SQLite text as UTF-8, marking text that is not valid UTF-8 instead of failing."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return MisencodedText(data.decode("utf-8", "replace"))


def is_decoding_error(error: sqlite3.Error) -> bool:
    """Return True when ``error`` is Python failing to decode stored text as UTF-8."""
    return isinstance(error, sqlite3.OperationalError) and "Could not decode" in str(error)


def read_table(
    connection: sqlite3.Connection,
    spec: TableSpec,
    present: Mapping[str, str],
    *,
    tolerant: bool = False,
    where: str = "",
    params: tuple = (),
) -> tuple[list[object], list[RowProblem]]:
    """Return the records of every usable row of ``spec.table`` and the problems found.

    ``present`` maps the table's columns to their declared types. With ``tolerant`` set, the connection's text
    factory is :func:`decode_tolerantly` and every row is searched for misencoded text.
    ``where`` (with its ``params``) limits the rows read.
    """
    query = select_checked(spec.table, spec.rules, present)
    if where:
        query += f" WHERE {where}"
    query += f" ORDER BY {spec.order_by}"
    attributes = spec.attributes
    # JSON text is parsed in Python: a row holding some takes the slower path too.
    json_positions = [
        index
        for index, rule in enumerate(spec.rules)
        if rule.kind in (INT_LIST, OBJECT) and rule.name in present
    ]
    json_values = itemgetter(*json_positions, -1) if json_positions else itemgetter(-1)
    no_json = (None,) * len(json_positions) + ("",) if json_positions else ""
    records: list[object] = []
    problems: list[RowProblem] = []
    for row in connection.execute(query, params):
        if tolerant or json_values(row) != no_json:
            record = _convert(row, spec, problems)
            if record is not None:
                records.append(record)
        else:
            records.append(_build(spec.record, attributes, row))
    return records, problems


def _convert(row: tuple, spec: TableSpec, problems: list[RowProblem]) -> object | None:
    """Return the record of a row needing more than copying, or None when it is skipped."""
    codes = dict(item.split(":", 1) for item in row[-1].split())
    values = list(row[:-1])
    skipped = any(rule.essential and rule.name in codes for rule in spec.rules)
    row_id = values[0]
    for index, rule in enumerate(spec.rules):
        value = values[index]
        code = codes.get(rule.name)
        if code is not None:
            problems.append(
                RowProblem(spec.table, row_id, rule.name, describe(code, value, rule), skipped)
            )
            values[index] = rule.fallback
            continue
        if isinstance(value, MisencodedText):
            problems.append(
                RowProblem(spec.table, row_id, rule.name, describe("utf8", value, rule), skipped)
            )
            values[index] = str(value)
        if value is not None and rule.kind in (INT_LIST, OBJECT):
            try:
                parsed = json.loads(value)
            except ValueError:
                # SQLite 3.42 to 3.44 call JSON5 valid; Python's parser does not.
                problems.append(
                    RowProblem(
                        spec.table, row_id, rule.name, describe("json", value, rule), skipped
                    )
                )
                values[index] = rule.fallback
                continue
            if rule.kind == OBJECT and _decodes_to_nul(value, parsed):
                problems.append(
                    RowProblem(
                        spec.table, row_id, rule.name, describe("nul_escape", value, rule), skipped
                    )
                )
                values[index] = rule.fallback
                continue
            values[index] = tuple(parsed) if rule.kind == INT_LIST else parsed
    if skipped:
        return None
    return _build(spec.record, spec.attributes, values)


def _decodes_to_nul(text: str, parsed: object) -> bool:
    """Return True when JSON ``text`` holds a ``\\u0000`` escape that decoded to NUL."""
    return "\\u0000" in text.lower() and _holds_nul(parsed)


def _holds_nul(value: object) -> bool:
    """Return True when a parsed JSON value holds NUL in any string, keys included."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    return False


def _build(record_class: type, attributes: tuple[str, ...], values: tuple | list) -> object:
    """Return a frozen dataclass record filled from ``values`` without calling ``__init__``.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``; for a
    hundred thousand memories of 29 fields that is most of the read time. The values here are
    already checked and complete, so they go straight into the instance dictionary.
    """
    record = object.__new__(record_class)
    record.__dict__.update(zip(attributes, values, strict=False))
    return record
