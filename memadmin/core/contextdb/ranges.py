"""Read a store's memories by id ranges, so that a large store is never held whole.

`read_store` returns every row at once; a store of 450,000 memories is then over a
gigabyte of Python objects. A `StoreRanges` reads the ids first, then the rows a range at
a time, all inside one read transaction: the ranges together are one snapshot, the same
rows `read_store` would return, with the same problems, in the same (id) order, and the
sessions of that snapshot.
"""

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from memadmin.core.contextdb.opening import (
    DEFAULT_TIMEOUT_SECONDS,
    memory_columns,
    open_readonly,
    require_memory_columns,
    translated_errors,
)
from memadmin.core.contextdb.reading import MEMORY_SPEC, _read_sessions
from memadmin.core.contextdb.records import RowProblem, UpstreamMemory, UpstreamSession
from memadmin.core.contextdb.rows import decode_tolerantly, is_decoding_error, read_table

# Rows read at a time: a few megabytes of records.
RANGE_ROWS = 5000

Read = TypeVar("Read")
Range = tuple[int | None, int | None, list[UpstreamMemory], list[RowProblem]]


class StoreRanges:
    """A store's memories read a range of ids at a time; a context manager.

    Everything read between entering and leaving comes from one read transaction; ``ids``
    holds every integer id in the store, ascending.
    """

    def __init__(self, path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS):
        self.path = Path(path)
        self.timeout = timeout
        self.connection: sqlite3.Connection | None = None
        self.ids: list[int] = []
        self.odd_ids = False
        self.columns: dict[str, str] = {}

    def __enter__(self) -> "StoreRanges":
        self.connection = open_readonly(self.path, timeout=self.timeout)
        try:
            with translated_errors(self.path):
                self.connection.execute("BEGIN")
                self.columns = memory_columns(self.connection, self.path)
                require_memory_columns(self.columns, self.path)
                ids = [row[0] for row in self.connection.execute('SELECT "id" FROM memories')]
                self.ids = sorted(i for i in ids if type(i) is int)
                self.odd_ids = len(self.ids) != len(ids)
        except BaseException:
            self.connection.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        connection, self.connection = self.connection, None
        self.ids = []
        if connection is not None:
            try:
                connection.execute("ROLLBACK")
            finally:
                connection.close()

    def projects(self) -> set[str]:
        """Return the project identities the store's rows name, as text memadmin can hold.

        A row naming its project otherwise (NULL, a number, text with NUL) is left out of
        the read with a problem: it names no project.
        """
        query = 'SELECT DISTINCT "project_path" FROM memories'
        rows = self._tolerantly(lambda: self.connection.execute(query).fetchall())
        return {row[0] for row in rows if isinstance(row[0], str) and "\x00" not in row[0]}

    def ids_of_project(self, project: str) -> set[int]:
        """Return the ids of the rows of one project (as ``project_path`` holds it)."""
        query = 'SELECT "id" FROM memories WHERE "project_path" = ?'
        rows = self._tolerantly(lambda: self.connection.execute(query, (project,)).fetchall())
        return {row[0] for row in rows if type(row[0]) is int}

    def ranges(self, size: int = RANGE_ROWS) -> Iterator[Range]:
        """Yield each range of ``size`` ids: its first and last id, its records and problems.

        A row whose id is not an integer (never in a store upstream wrote) comes last, in a
        range of its own (first and last None), so that its problem is reported too.
        """
        for start in range(0, len(self.ids), size):
            first, last = self.ids[start], self.ids[min(start + size, len(self.ids)) - 1]
            yield (first, last, *self.rows(first, last))
        if self.odd_ids:
            yield (None, None, *self._rows("typeof(\"id\") != 'integer'", ()))

    def rows(self, first: int, last: int) -> tuple[list[UpstreamMemory], list[RowProblem]]:
        """Return the records and problems of the rows with ids from ``first`` to ``last``."""
        return self._rows('"id" BETWEEN ? AND ?', (first, last))

    def sessions(self) -> tuple[list[UpstreamSession], list[RowProblem]]:
        """Return the store's sessions and their problems."""
        return self._tolerantly(lambda: _read_sessions(self.connection, tolerant=self._tolerant()))

    def _rows(self, where: str, params: tuple) -> tuple[list[UpstreamMemory], list[RowProblem]]:
        return self._tolerantly(
            lambda: read_table(
                self.connection,
                MEMORY_SPEC,
                self.columns,
                tolerant=self._tolerant(),
                where=where,
                params=params,
            )
        )

    def _tolerant(self) -> bool:
        return self.connection.text_factory is decode_tolerantly

    def _tolerantly(self, read: Callable[[], Read]) -> Read:
        """Return what ``read`` returns; text that is not UTF-8 makes every later read tolerant."""
        with translated_errors(self.path):
            try:
                return read()
            except sqlite3.OperationalError as error:
                if self._tolerant() or not is_decoding_error(error):
                    raise
            self.connection.text_factory = decode_tolerantly
            return read()
