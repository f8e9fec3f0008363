"""Read a magic-context store: what it is, its memories and its sessions."""

import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path

from memadmin.core.contextdb.opening import (
    DEFAULT_TIMEOUT_SECONDS,
    memory_columns,
    open_readonly,
    require_memory_columns,
    table_columns,
    translated_errors,
)
from memadmin.core.contextdb.records import (
    RowProblem,
    StoreInfo,
    StoreRead,
    UpstreamMemory,
    UpstreamSession,
)
from memadmin.core.contextdb.rows import TableSpec, decode_tolerantly, is_decoding_error, read_table
from memadmin.core.contextdb.rules import MEMORY_RULES, SESSION_RULES

MEMORY_SPEC = TableSpec("memories", MEMORY_RULES, UpstreamMemory, order_by='"id"')
SESSION_SPEC = TableSpec("session_meta", SESSION_RULES, UpstreamSession, order_by='"session_id"')


def read_store(path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> StoreRead:
    """Return the memories and sessions of a store, read from one snapshot, with their problems.

    A bad value never stops the read: it is recorded as a RowProblem and the row is kept
    with that value replaced, or left out when the value is essential (see RowProblem).
    Raise StoreError when the file is not a readable store.
    """
    path = Path(path)
    connection = open_readonly(path, timeout=timeout)
    try:
        with translated_errors(path):
            try:
                return _read_snapshot(connection, path, tolerant=False)
            except sqlite3.OperationalError as error:
                if not is_decoding_error(error):
                    raise
            connection.text_factory = decode_tolerantly
            return _read_snapshot(connection, path, tolerant=True)
    finally:
        connection.close()


def read_memories(
    path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS
) -> Iterator[UpstreamMemory]:
    """Yield the usable memories of a store in id order; ``read_store`` also gives problems."""
    yield from read_store(path, timeout=timeout).memories


def _read_snapshot(connection: sqlite3.Connection, path: Path, *, tolerant: bool) -> StoreRead:
    """Read memories and sessions inside one read transaction, so both match."""
    connection.execute("BEGIN")
    try:
        columns = memory_columns(connection, path)
        require_memory_columns(columns, path)
        memories, problems = read_table(connection, MEMORY_SPEC, columns, tolerant=tolerant)
        sessions, session_problems = _read_sessions(connection, tolerant=tolerant)
    finally:
        connection.execute("ROLLBACK")
    return StoreRead(memories=memories, sessions=sessions, problems=problems + session_problems)


def read_sessions(
    path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS
) -> tuple[list[UpstreamSession], list[RowProblem]]:
    """Return a store's sessions and the problems found in them, without its memories."""
    path = Path(path)
    connection = open_readonly(path, timeout=timeout)
    try:
        with translated_errors(path):
            try:
                return _read_sessions(connection, tolerant=False)
            except sqlite3.OperationalError as error:
                if not is_decoding_error(error):
                    raise
            connection.text_factory = decode_tolerantly
            return _read_sessions(connection, tolerant=True)
    finally:
        connection.close()


def _read_sessions(
    connection: sqlite3.Connection, *, tolerant: bool
) -> tuple[list[UpstreamSession], list[RowProblem]]:
    """Return the sessions; a store without ``session_meta`` simply has none."""
    columns = table_columns(connection, SESSION_SPEC.table)
    if columns is None:
        return [], []
    if "session_id" not in columns:
        problem = RowProblem(
            SESSION_SPEC.table, None, "session_id", "column is missing; no session read", True
        )
        return [], [problem]
    return read_table(connection, SESSION_SPEC, columns, tolerant=tolerant)


def inspect_store(
    path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS, projects: bool = True
) -> StoreInfo:
    """Return what a store is: schema version, migration count, columns, uuid and projects.

    Raise StoreError unless the file is an SQLite database with a ``memories`` table; the
    required columns are not demanded here, ``columns`` shows which exist. Listing the
    projects reads every row; ``projects=False`` leaves the list empty instead.
    """
    path = Path(path)
    connection = open_readonly(path, timeout=timeout)
    try:
        with translated_errors(path):
            connection.execute("BEGIN")
            columns = memory_columns(connection, path)
            schema_version, migrations = _migrations(connection)
            info = StoreInfo(
                schema_version=schema_version,
                migrations=migrations,
                columns=frozenset(columns),
                store_uuid=_store_uuid(connection),
                projects=_projects(connection, columns) if projects else [],
            )
            connection.execute("ROLLBACK")
            return info
    finally:
        connection.close()


def _migrations(connection: sqlite3.Connection) -> tuple[int | None, int]:
    """Return the highest migration version recorded and how many migrations there are."""
    columns = table_columns(connection, "schema_migrations")
    if columns is None or "version" not in columns:
        return None, 0
    count, highest = connection.execute(
        "SELECT count(*), max(CASE WHEN typeof(version) = 'integer' THEN version END) "
        "FROM schema_migrations"
    ).fetchone()
    return highest, count


def _store_uuid(connection: sqlite3.Connection) -> str | None:
    """Return the store's ``store_uuid`` from ``context_store_meta``, or None."""
    columns = table_columns(connection, "context_store_meta")
    if columns is None or not {"key", "value"} <= columns.keys():
        return None
    row = connection.execute(
        "SELECT value FROM context_store_meta WHERE key = 'store_uuid' AND typeof(value) = 'text'"
    ).fetchone()
    return row[0] if row else None


def _projects(connection: sqlite3.Connection, columns: Mapping[str, str]) -> list[str]:
    """Return every project identity holding memories, sorted."""
    if "project_path" not in columns:
        return []
    rows = connection.execute(
        "SELECT DISTINCT project_path FROM memories WHERE typeof(project_path) = 'text' "
        "ORDER BY project_path"
    )
    return [row[0] for row in rows]


def session_prompt_hashes(
    source: sqlite3.Connection | str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS
) -> dict[str, str]:
    """Return each session's ``system_prompt_hash`` by session id.

    ``source`` is an open connection or the path of a store. Sessions without a hash are
    left out; a store without ``session_meta``, or without either column, gives ``{}``.
    """
    if isinstance(source, sqlite3.Connection):
        return _prompt_hashes(source)
    path = Path(source)
    connection = open_readonly(path, timeout=timeout)
    try:
        with translated_errors(path):
            return _prompt_hashes(connection)
    finally:
        connection.close()


def _prompt_hashes(connection: sqlite3.Connection) -> dict[str, str]:
    columns = table_columns(connection, "session_meta")
    if columns is None or not {"session_id", "system_prompt_hash"} <= columns.keys():
        return {}
    rows = connection.execute(
        "SELECT session_id, system_prompt_hash FROM session_meta "
        "WHERE typeof(session_id) = 'text' AND typeof(system_prompt_hash) = 'text'"
    )
    return dict(rows.fetchall())


def integrity_problems(path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> list[str]:
    """Return what SQLite's ``PRAGMA quick_check`` finds wrong with a file; empty when sound.

    It reads every page, so it costs about a fifth of a full read of the memories: run it
    on demand, not on every open.
    """
    path = Path(path)
    connection = open_readonly(path, timeout=timeout)
    try:
        with translated_errors(path):
            rows = connection.execute("PRAGMA quick_check").fetchall()
    finally:
        connection.close()
    messages = [row[0] for row in rows]
    return [] if messages == ["ok"] else messages
