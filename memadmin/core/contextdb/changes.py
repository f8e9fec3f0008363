"""Read only what changed in a store since a set of marks: the incremental sync's reader.

A change upstream shows in one of three places: a new row has a higher id (ids only grow,
the table is AUTOINCREMENT), a changed row a later time in one of its time columns, and an
archive, delete, update or supersession a new `memory_mutation_log` row. The marks are the
highest of each seen so far; rows at or above them (times less a margin, for clocks that
disagree) are read again. Ids are never reused, so rows were deleted since exactly when
the row count is less than the old count plus the rows above the old highest id; only then
is every id read, once, to find which.
"""

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from memadmin.core.contextdb.idset import IdSet
from memadmin.core.contextdb.opening import (
    DEFAULT_TIMEOUT_SECONDS,
    memory_columns,
    open_readonly,
    require_memory_columns,
    table_columns,
    translated_errors,
)
from memadmin.core.contextdb.reading import MEMORY_SPEC
from memadmin.core.contextdb.records import RowProblem, UpstreamMemory
from memadmin.core.contextdb.rows import decode_tolerantly, is_decoding_error, read_table
from memadmin.core.contextdb.rules import quote_identifier

TIME_COLUMNS = ("updated_at", "last_seen_at", "last_retrieved_at", "verified_at")
MARGIN_MS = 60 * 1000
LOG_TABLE = "memory_mutation_log"


@dataclass(frozen=True)
class StoreMarks:
    """How far a store has got: its row count, highest id, latest time and last log id."""

    count: int = 0
    max_id: int = 0
    changed_at: int = 0
    log_id: int = 0
    workspaces: str = ""


@dataclass(frozen=True)
class ChangedRead:
    """The rows changed since some marks, the marks now, and every id when rows were deleted.

    ``ids`` is None when no row was deleted since the marks.
    """

    memories: list[UpstreamMemory]
    problems: list[RowProblem]
    ids: IdSet | None
    marks: StoreMarks


def _integer(value: object) -> int:
    return value if isinstance(value, int) else 0


def marks_of(connection: sqlite3.Connection, columns) -> StoreMarks:
    """Return a store's marks, read on an open connection (inside the caller's snapshot)."""
    times = [name for name in TIME_COLUMNS if name in columns]
    aggregates = ", ".join(f'max("{name}")' for name in times)
    row = connection.execute(
        f'SELECT count(*), max("id"){", " + aggregates if aggregates else ""} FROM memories'
    ).fetchone()
    log_id = 0
    log_columns = table_columns(connection, LOG_TABLE)
    if log_columns is not None and "id" in log_columns:
        log_id = _integer(connection.execute(f"SELECT max(id) FROM {LOG_TABLE}").fetchone()[0])
    changed_at = max((_integer(value) for value in row[2:]), default=0)
    return StoreMarks(row[0], _integer(row[1]), changed_at, log_id, workspaces_mark(connection))


def workspaces_mark(connection: sqlite3.Connection) -> str:
    """Return a digest of the ``workspaces`` and ``workspace_members`` rows ("" without them).

    A workspace edit moves no memory mark, so the incremental sync compares this too: the
    tables hold a few rows per workspace, so reading them whole at every check costs nothing.
    """
    digest = hashlib.md5()
    found = False
    for table in ("workspaces", "workspace_members"):
        columns = table_columns(connection, table)
        if columns is None:
            continue
        found = True
        names = sorted(columns)
        listed = ", ".join(quote_identifier(name) for name in names)
        for row in connection.execute(f"SELECT {listed} FROM {table} ORDER BY {listed}"):
            digest.update(repr((table, names, row)).encode("utf-8", "backslashreplace"))
    return digest.hexdigest() if found else ""


def store_marks(path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> StoreMarks:
    """Return a store's marks: four aggregate reads, whatever its size."""
    path = Path(path)
    connection = open_readonly(path, timeout=timeout)
    try:
        with translated_errors(path):
            return marks_of(connection, memory_columns(connection, path))
    finally:
        connection.close()


def read_changed(
    path: str | Path,
    since: StoreMarks,
    *,
    now: StoreMarks | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> ChangedRead:
    """Return the rows new or changed since ``since``, and the marks, in one snapshot.

    ``now`` is the store's marks when the caller has just read them (marks older than the
    rows read only make the next read a little longer); else they are read here.
    """
    path = Path(path)
    connection = open_readonly(path, timeout=timeout)
    try:
        with translated_errors(path):
            try:
                return _read(connection, path, since, now, tolerant=False)
            except sqlite3.OperationalError as error:
                if not is_decoding_error(error):
                    raise
            connection.text_factory = decode_tolerantly
            return _read(connection, path, since, now, tolerant=True)
    finally:
        connection.close()


def _read(connection, path: Path, since: StoreMarks, now, *, tolerant: bool) -> ChangedRead:
    connection.execute("BEGIN")
    try:
        columns = memory_columns(connection, path)
        require_memory_columns(columns, path)
        marks = now or marks_of(connection, columns)
        conditions, params = ['"id" > ?'], [since.max_id]
        for name in TIME_COLUMNS:
            if name in columns:
                conditions.append(f'"{name}" >= ?')
                params.append(since.changed_at - MARGIN_MS)
        log_columns = table_columns(connection, LOG_TABLE) or {}
        if {"id", "target_memory_id"} <= log_columns.keys():
            conditions.append(f'"id" IN (SELECT target_memory_id FROM {LOG_TABLE} WHERE id > ?)')
            params.append(since.log_id)
        memories, problems = read_table(
            connection,
            MEMORY_SPEC,
            columns,
            tolerant=tolerant,
            where=" OR ".join(conditions),
            params=tuple(params),
        )
        ids = IdSet(
            row[0]
            for row in connection.execute("SELECT id FROM memories WHERE typeof(id) = 'integer'")
        )
    finally:
        connection.execute("ROLLBACK")
    return ChangedRead(memories, problems, ids, marks)
