"""The proposal's two composite tables in a magic-context store: their shape, and its checks.

Plain Python over ``sqlite3``. The tables are the proposal's (Proposal 2, "Schema"), with
only what it implies added: a primary key on ``(composite_id, member_memory_id)`` (a member
once per composite), foreign keys to ``memories(id)`` with ``ON DELETE CASCADE``, a closed
type (a CHECK over the types given, the composites app's `Composite.Type`), and triggers
refusing a member equal to its composite's head. Times are epoch milliseconds and ids are
the store's memory ids. Titles have no column: they stay in memadmin.

A table of either name that already exists with another shape (other columns, types, NOT
NULL or key) is never touched: `shape_difference` names what differs, and `tables_create`
refuses before writing anything.
"""

import sqlite3
from collections.abc import Sequence

from memadmin.core.contextdb.errors import StoreError

TABLES = ("composites", "composite_members")
INDEXES = ("idx_composites_head", "idx_composite_members_member")
TRIGGERS = ("composite_members_not_head_insert", "composite_members_not_head_update")
HEAD_REFUSAL = "the head of a composite is never its own member"

# (name, declared type, NOT NULL, position in the primary key (0: not in it)), as
# `PRAGMA table_info` reports them.
SHAPES: dict[str, tuple[tuple[str, str, int, int], ...]] = {
    "composites": (
        ("id", "INTEGER", 0, 1),
        ("type", "TEXT", 1, 0),
        ("head_memory_id", "INTEGER", 1, 0),
        ("cursor", "INTEGER", 1, 0),
        ("created_at", "INTEGER", 1, 0),
        ("updated_at", "INTEGER", 1, 0),
    ),
    "composite_members": (
        ("composite_id", "INTEGER", 1, 1),
        ("member_memory_id", "INTEGER", 1, 2),
        ("position", "INTEGER", 1, 0),
    ),
}


class ForeignShape(StoreError):
    """A table of the composites' names exists in the store with another shape."""


def ddl(types: Sequence[str]) -> list[str]:
    """Return the statements creating the two tables, their indexes and the head triggers."""
    listed = ", ".join("'" + name.replace("'", "''") + "'" for name in types)
    return [
        "CREATE TABLE composites (\n"
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        f"  type TEXT NOT NULL CHECK (type IN ({listed})),\n"
        "  head_memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,\n"
        "  cursor INTEGER NOT NULL DEFAULT 0,\n"
        "  created_at INTEGER NOT NULL,\n"
        "  updated_at INTEGER NOT NULL\n"
        ")",
        "CREATE INDEX idx_composites_head ON composites(head_memory_id)",
        "CREATE TABLE composite_members (\n"
        "  composite_id INTEGER NOT NULL REFERENCES composites(id) ON DELETE CASCADE,\n"
        "  member_memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,\n"
        "  position INTEGER NOT NULL,\n"
        "  PRIMARY KEY (composite_id, member_memory_id)\n"
        ")",
        "CREATE INDEX idx_composite_members_member ON composite_members(member_memory_id)",
        *(
            f"CREATE TRIGGER {name} BEFORE {event} ON composite_members\n"
            "WHEN NEW.member_memory_id = "
            "(SELECT head_memory_id FROM composites WHERE id = NEW.composite_id)\n"
            f"BEGIN SELECT RAISE(ABORT, '{HEAD_REFUSAL}'); END"
            for name, event in zip(TRIGGERS, ("INSERT", "UPDATE"), strict=True)
        ),
    ]


def _shape(connection: sqlite3.Connection, table: str) -> tuple | None:
    exists = connection.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    if exists is None:
        return None
    rows = connection.execute(f'PRAGMA table_info("{table}")').fetchall()
    return tuple((row[1], (row[2] or "").upper(), int(row[3]), int(row[5])) for row in rows)


def _describe(column: tuple[str, str, int, int]) -> str:
    name, type_, notnull, key = column
    parts = [name, type_ or "(no type)"]
    if notnull:
        parts.append("NOT NULL")
    if key:
        parts.append(f"primary key part {key}")
    return " ".join(parts)


def shape_difference(connection: sqlite3.Connection) -> str:
    """Return how the store's tables of these names differ from the shape ("" when they do not).

    A table that is absent differs in nothing: it is the one to create.
    """
    differences = []
    for table, wanted in SHAPES.items():
        found = _shape(connection, table)
        if found is None or found == wanted:
            continue
        want = {column[0]: column for column in wanted}
        have = {column[0]: column for column in found}
        parts = [f"no column {name}" for name in want if name not in have]
        parts += [f"an extra column {name}" for name in have if name not in want]
        parts += [
            f"{name} is {_describe(have[name])}, not {_describe(want[name])}"
            for name in want
            if name in have and have[name] != want[name]
        ]
        if not parts and [c[0] for c in found] != [c[0] for c in wanted]:
            parts.append("its columns are in another order")
        differences.append(f"the store's table {table} has another shape: " + "; ".join(parts))
    return "; ".join(differences)


def tables_present(connection: sqlite3.Connection) -> list[str]:
    """Return which of the two tables the store has."""
    return [table for table in TABLES if _shape(connection, table) is not None]


def tables_create(connection: sqlite3.Connection, types: Sequence[str]) -> list[str]:
    """Create whichever of the two tables (with its index) is missing; return those created.

    Run it inside the caller's write transaction. Raise ForeignShape, creating nothing, when
    a table of either name exists with another shape.
    """
    difference = shape_difference(connection)
    if difference:
        raise ForeignShape(difference + "; nothing was created")
    present = set(tables_present(connection))
    created = []
    statements = ddl(types)
    if "composites" not in present:
        connection.execute(statements[0])
        connection.execute(statements[1])
        created.append("composites")
    if "composite_members" not in present:
        for statement in statements[2:]:
            connection.execute(statement)
        created.append("composite_members")
    return created


def tables_drop(connection: sqlite3.Connection) -> None:
    """Drop the two tables (their indexes and triggers go with them)."""
    connection.execute("DROP TABLE IF EXISTS composite_members")
    connection.execute("DROP TABLE IF EXISTS composites")


def rows_read(connection: sqlite3.Connection) -> tuple[list[dict], list[dict]]:
    """Return the store's composite rows and member rows (members by composite and position)."""
    if set(tables_present(connection)) != set(TABLES):
        return [], []
    composites = [
        dict(
            zip(
                ("id", "type", "head_memory_id", "cursor", "created_at", "updated_at"),
                row,
                strict=True,
            )
        )
        for row in connection.execute(
            "SELECT id, type, head_memory_id, cursor, created_at, updated_at FROM composites "
            "ORDER BY id"
        )
    ]
    members = [
        dict(zip(("composite_id", "member_memory_id", "position"), row, strict=True))
        for row in connection.execute(
            "SELECT composite_id, member_memory_id, position FROM composite_members "
            "ORDER BY composite_id, position, member_memory_id"
        )
    ]
    return composites, members


def repoint_members(connection: sqlite3.Connection, successors: dict[int, int], now: int) -> int:
    """Point heads and members that were merged (``successors``: source id to result) at the result.

    The proposal's compression fate, with the rules memadmin's own repointing keeps
    (`memadmin.composites.repoint_services`): a member that becomes a duplicate collapses to
    its earliest position, one equal to its head is dropped, positions are renumbered and the
    cursor follows its member (to the one that took its place when it was dropped). Run it in
    the caller's write transaction, with the tables present. Return how many composites moved.
    """
    if not successors or set(tables_present(connection)) != set(TABLES):
        return 0
    marks = ", ".join("?" for _ in successors)
    sources = list(successors)
    touched = connection.execute(
        f"SELECT id, head_memory_id, cursor FROM composites WHERE head_memory_id IN ({marks}) "
        f"OR id IN (SELECT composite_id FROM composite_members WHERE member_memory_id IN ({marks})) "
        "ORDER BY id",
        sources + sources,
    ).fetchall()
    for cid, head, cursor in touched:
        rows = [
            member
            for (member,) in connection.execute(
                "SELECT member_memory_id FROM composite_members WHERE composite_id = ? "
                "ORDER BY position, member_memory_id",
                (cid,),
            )
        ]
        new_head = successors.get(head, head)
        cursor_on = rows[cursor] if 0 <= cursor < len(rows) else None
        cursor_on = successors.get(cursor_on, cursor_on)
        kept: list[int] = []
        before_cursor = 0
        for index, member in enumerate(rows):
            target = successors.get(member, member)
            if target == new_head or target in kept:
                continue
            kept.append(target)
            before_cursor += index < cursor
        if cursor_on in kept:
            new_cursor = kept.index(cursor_on)
        else:
            new_cursor = before_cursor % len(kept) if kept else 0
        connection.execute("DELETE FROM composite_members WHERE composite_id = ?", (cid,))
        connection.execute(
            "UPDATE composites SET head_memory_id = ?, cursor = ?, updated_at = ? WHERE id = ?",
            (new_head, new_cursor, now, cid),
        )
        connection.executemany(
            "INSERT INTO composite_members (composite_id, member_memory_id, position) "
            "VALUES (?, ?, ?)",
            [(cid, member, index) for index, member in enumerate(kept)],
        )
    return len(touched)
