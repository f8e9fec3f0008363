"""Read what a store says beyond its memories: workspaces, and what each session was given.

Upstream's DDL (``features/magic-context/migrations.ts``, versions 34 and 35):

    CREATE TABLE workspaces (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
        share_categories TEXT NOT NULL DEFAULT '["CONSTRAINTS"]');
    CREATE TABLE workspace_members (workspace_id INTEGER NOT NULL REFERENCES workspaces(id)
        ON DELETE CASCADE, project_path TEXT NOT NULL, display_name TEXT NOT NULL,
        display_path TEXT NOT NULL, added_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, project_path));

``session_meta`` holds ``harness``, ``memory_block_cache`` (the block's text, '' when not
cached), ``memory_block_count`` and ``memory_block_ids``; which project a session ran in is
``session_meta.project_path`` in stores that have it, else ``session_projects`` (version 36).
Every column is optional here: a store without a table or column reads as having none.
Plain Python over ``sqlite3``, read-only, in one snapshot.
"""

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from memadmin.core.contextdb.opening import (
    DEFAULT_TIMEOUT_SECONDS,
    open_readonly,
    table_columns,
    translated_errors,
)
from memadmin.core.contextdb.rules import quote_identifier
from memadmin.core.ledger.reader import (
    COALESCED,
    NULLABLE_NUMBER,
    NULLABLE_TEXT,
    NUMBER,
    ROW_CHECKS,
    TEXT,
    row_problem,
)

# Columns memadmin keeps exactly as the store has them, or refuses: not looked at here.
KEPT_EXACTLY = frozenset({"content", "status"})


@dataclass(frozen=True, slots=True)
class WorkspaceRow:
    """One ``workspaces`` row; ``share_categories`` is the raw value (text or None)."""

    id: int
    name: str
    share_categories: object
    created_at: int | None


@dataclass(frozen=True, slots=True)
class MemberRow:
    """One ``workspace_members`` row."""

    workspace_id: int
    project_path: str
    display_name: str | None
    display_path: str | None
    added_at: int | None


@dataclass(frozen=True, slots=True)
class SessionExtra:
    """What ``session_meta`` (and ``session_projects``) say a session was given, and where."""

    session_id: str
    harness: str
    project_path: str | None
    block_text: str
    block_count: int | None


@dataclass(frozen=True, slots=True)
class UnreadValue:
    """A live row's value the plugin's reader rejects and memadmin's sync keeps otherwise.

    ``value`` is the store's value (a BLOB as ``{"blob": hex}``, never text or a number).
    """

    memory_id: int
    project_path: str
    column: str
    value: object


@dataclass(frozen=True, slots=True)
class StoreExtras:
    """Workspaces, members and session extras read from one snapshot of a store."""

    workspaces: list[WorkspaceRow]
    members: list[MemberRow]
    sessions: list[SessionExtra]
    memory_projects: frozenset[str]
    unread: list[UnreadValue] = field(default_factory=list)


def _select(
    connection: sqlite3.Connection, table: str, wanted: tuple[str, ...], order_by: str
) -> list[tuple]:
    """Return ``wanted`` columns of every row (NULL for a column the table lacks)."""
    columns = table_columns(connection, table)
    if columns is None:
        return []
    values = ", ".join(quote_identifier(c) if c in columns else "NULL" for c in wanted)
    order = ", ".join(quote_identifier(c) for c in order_by.split(",") if c in columns)
    sql = f"SELECT {values} FROM {quote_identifier(table)}" + (
        f" ORDER BY {order}" if order else ""
    )
    return connection.execute(sql).fetchall()


def read_extras(
    path: str | Path,
    *,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    memory_ids: Collection[int] | None = None,
) -> StoreExtras:
    """Return a store's workspaces, members and session extras; raise StoreError if unreadable.

    ``memory_ids`` limits the unread values to those rows (an incremental sync's changed
    rows); None looks at every live row.
    """
    path = Path(path)
    connection = open_readonly(path, timeout=timeout)
    try:
        with translated_errors(path):
            connection.text_factory = lambda data: data.decode("utf-8", "replace")
            connection.execute("BEGIN")
            try:
                return _read(connection, memory_ids)
            finally:
                connection.execute("ROLLBACK")
    finally:
        connection.close()


def _read(connection: sqlite3.Connection, memory_ids: Collection[int] | None) -> StoreExtras:
    workspaces = [
        WorkspaceRow(id, name if isinstance(name, str) else str(name), raw, _int(created))
        for id, name, raw, created in _select(
            connection, "workspaces", ("id", "name", "share_categories", "created_at"), "id"
        )
        if isinstance(id, int)
    ]
    members = [
        MemberRow(workspace_id, project_path, _text(name), _text(display_path), _int(added))
        for workspace_id, project_path, name, display_path, added in _select(
            connection,
            "workspace_members",
            ("workspace_id", "project_path", "display_name", "display_path", "added_at"),
            "workspace_id,project_path",
        )
        if isinstance(workspace_id, int) and isinstance(project_path, str) and project_path
    ]
    projects_of = dict(
        _select(connection, "session_projects", ("session_id", "project_path"), "session_id")
    )
    sessions = [
        SessionExtra(
            session_id,
            _text(harness) or "",
            _text(project_path) or projects_of.get(session_id),
            _text(block) or "",
            _int(count),
        )
        for session_id, harness, project_path, block, count in _select(
            connection,
            "session_meta",
            ("session_id", "harness", "project_path", "memory_block_cache", "memory_block_count"),
            "session_id",
        )
        if isinstance(session_id, str)
    ]
    memory_projects: frozenset[str] = frozenset()
    unread: list[UnreadValue] = []
    columns = table_columns(connection, "memories")
    if columns is not None:
        memory_projects = frozenset(
            row[0] for row in connection.execute("SELECT DISTINCT project_path FROM memories")
        )
        unread = _unread(connection, columns, memory_ids)
    return StoreExtras(workspaces, members, sessions, memory_projects, unread)


def _suspect(column: str, kind: object) -> str:
    """Return an SQL condition true when the column's value may fail the plugin's check."""
    quoted = quote_identifier(column)
    if column in COALESCED:
        quoted = f"COALESCE({quoted}, {COALESCED[column]!r})"
    kinds = {
        NUMBER: "('integer', 'real')",
        NULLABLE_NUMBER: "('integer', 'real', 'null')",
        TEXT: "('text')",
        NULLABLE_TEXT: "('text', 'null')",
    }
    if kind in kinds:
        return f"typeof({quoted}) NOT IN {kinds[kind]}"
    allowed = ", ".join(f"'{value}'" for value in kind)  # type: ignore[union-attr]
    return f"({quoted} IS NULL OR {quoted} NOT IN ({allowed}))"


def _unread(
    connection: sqlite3.Connection, columns: dict[str, str], memory_ids: Collection[int] | None
) -> list[UnreadValue]:
    """Return the live rows' first value the plugin's reader rejects (see ``reader``).

    SQLite finds the suspect rows (of ``memory_ids`` only, unless None); ``row_problem``
    names the first failing column of each.
    """
    checked = [(c, k) for c, k in ROW_CHECKS if c in columns and c not in KEPT_EXACTLY]
    if not checked or not {"id", "project_path", "status"} <= columns.keys():
        return []
    if memory_ids is not None and not memory_ids:
        return []
    names = [column for column, _ in checked]
    only = "" if memory_ids is None else "id IN (SELECT value FROM json_each(?)) AND "
    sql = (
        f"SELECT id, project_path, {', '.join(map(quote_identifier, names))} FROM memories "
        f"WHERE {only}status IN ('active', 'permanent') AND ("
        + " OR ".join(_suspect(c, k) for c, k in checked)
        + ") ORDER BY id"
    )
    parameters = () if memory_ids is None else (json.dumps(sorted(memory_ids)),)
    found = []
    for memory_id, project_path, *values in connection.execute(sql, parameters):
        raw = {
            name: {"blob": value.hex()} if isinstance(value, bytes) else value
            for name, value in zip(names, values, strict=True)
        }
        problem = row_problem(raw)
        if problem is not None and isinstance(memory_id, int):
            found.append(UnreadValue(memory_id, project_path, problem[0], problem[1]))
    return found


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) else None
