"""Insert many memories without running the index and size triggers once per row.

On SQLite a memory's full-text entry (`search`) and its size (`sizes`) are written by
AFTER INSERT triggers, one trigger program per row: for the hundred thousand new rows of a
first sync they cost more than the rows themselves. Since migration 0009 those two insert
triggers run only ``WHEN memadmin_row_triggers()``, a function every memadmin connection
to SQLite registers, which answers 1 unless this very connection suspended them. On
PostgreSQL (which computes the search vector itself, a generated column) the size trigger
runs only while the session's ``memadmin.row_triggers`` setting is not ``off``.

`indexed_in_bulk` suspends them on the calling connection only around the insert, then
indexes and sizes the same rows with set-based statements, all inside the caller's
transaction: a reader never sees a new row without its index entry and size, and every
other connection (a person's save while a sync runs) keeps its triggers. The update and
delete triggers are never suspended; on SQLite the update ones run only when the text
changed.
"""

from collections.abc import Sequence
from contextlib import contextmanager

from django.db import connection as default_connection
from django.db.backends.signals import connection_created

from .search import FTS_TABLE
from .sizes import DIGEST_FUNCTION
from .sizes import SQL_FUNCTION as SIZE_FUNCTION

TRIGGERS_FUNCTION = "memadmin_row_triggers"
MEMORIES = "memories_memory"
POSTGRESQL_SETTING = "memadmin.row_triggers"
_SWITCH = "memadmin_row_triggers"


class _Switch:
    """A connection's answer to `memadmin_row_triggers()`: 1 (triggers run) or 0."""

    def __init__(self):
        self.on = 1

    def __call__(self) -> int:
        return self.on


def register_sqlite_function(sender, connection, **kwargs) -> None:
    """Give a new SQLite connection the function the insert triggers ask (answering 1)."""
    if connection.vendor == "sqlite":
        switch = _Switch()
        setattr(connection, _SWITCH, switch)
        connection.connection.create_function(TRIGGERS_FUNCTION, 0, switch)


def connect() -> None:
    """Register the function on every SQLite connection from now on."""
    connection_created.connect(register_sqlite_function, dispatch_uid="memadmin-row-triggers")


@contextmanager
def indexed_in_bulk(ids: Sequence[int], connection=default_connection):
    """Inside the block, insert the memories ``ids``; at its end they are indexed and sized.

    Use inside a transaction (the caller's): this connection's insert triggers are off
    within the block, and the rows get their full-text entries (SQLite) and sizes by
    set-based statements as it ends, before the transaction can commit. A block that raises
    indexes nothing: its transaction rolls back.
    """
    if not ids:
        yield
        return
    if not connection.in_atomic_block:
        raise RuntimeError("indexed_in_bulk must be used inside a transaction")
    if connection.vendor == "postgresql":
        with _suspended_postgresql(connection):
            yield
        _index_postgresql(connection, ids)
        return
    if connection.vendor != "sqlite":
        raise NotImplementedError("memadmin runs on SQLite or PostgreSQL")
    connection.ensure_connection()
    switch = getattr(connection, _SWITCH)
    switch.on = 0
    try:
        yield
    finally:
        switch.on = 1
    wanted = "(SELECT value FROM json_each(%s))"
    listed = "[" + ",".join(str(int(pk)) for pk in ids) + "]"
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {FTS_TABLE}(rowid, content) "
            f"SELECT id, content FROM {MEMORIES} WHERE id IN {wanted}",
            [listed],
        )
        cursor.execute(
            "INSERT OR REPLACE INTO memories_memorysize (memory_id, tokens, content_digest) "
            f"SELECT id, {SIZE_FUNCTION}(content), {DIGEST_FUNCTION}(content) "
            f"FROM {MEMORIES} WHERE id IN {wanted}",
            [listed],
        )


@contextmanager
def _suspended_postgresql(connection):
    """Turn the size trigger off for this transaction; an error leaves it to the rollback."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT set_config('{POSTGRESQL_SETTING}', 'off', true)")
    yield
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT set_config('{POSTGRESQL_SETTING}', 'on', true)")


def _index_postgresql(connection, ids: Sequence[int]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memories_memorysize (memory_id, tokens, content_digest) "
            f"SELECT id, {SIZE_FUNCTION}(content), {DIGEST_FUNCTION}(content) "
            f"FROM {MEMORIES} WHERE id = ANY(%s) "
            "ON CONFLICT (memory_id) DO UPDATE "
            "SET tokens = EXCLUDED.tokens, content_digest = EXCLUDED.content_digest",
            [[int(pk) for pk in ids]],
        )


def _triggers(suspendable: bool) -> list[str]:
    """Return (as migration 0009 made them, before the content digest of 0010: see `sizes`) the statements that (re)create the insert and update triggers of the two indexes.

    ``suspendable``: the insert triggers ask `memadmin_row_triggers()`, and the update
    triggers run only when the text changed (an update writing the same text, as a sync's
    does for a row whose counters moved, leaves its index entry and size as they are).
    """
    ask = f" WHEN {TRIGGERS_FUNCTION}()" if suspendable else ""
    moved = " WHEN old.content IS NOT new.content" if suspendable else ""
    return [
        "DROP TRIGGER IF EXISTS memories_memory_size_insert",
        f"""CREATE TRIGGER memories_memory_size_insert AFTER INSERT ON {MEMORIES}{ask} BEGIN
      INSERT OR REPLACE INTO memories_memorysize (memory_id, tokens)
      VALUES (new.id, {SIZE_FUNCTION}(new.content));
    END""",
        "DROP TRIGGER IF EXISTS memories_memory_fts_insert",
        f"""CREATE TRIGGER memories_memory_fts_insert AFTER INSERT ON {MEMORIES}{ask} BEGIN
      INSERT INTO {FTS_TABLE}(rowid, content) VALUES (new.id, new.content);
    END""",
        "DROP TRIGGER IF EXISTS memories_memory_size_update",
        f"""CREATE TRIGGER memories_memory_size_update AFTER UPDATE OF content ON {MEMORIES}{moved}
    BEGIN
      INSERT OR REPLACE INTO memories_memorysize (memory_id, tokens)
      VALUES (new.id, {SIZE_FUNCTION}(new.content));
    END""",
        "DROP TRIGGER IF EXISTS memories_memory_fts_update",
        f"""CREATE TRIGGER memories_memory_fts_update AFTER UPDATE OF content ON {MEMORIES}{moved}
    BEGIN
      INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content) VALUES ('delete', old.id, old.content);
      INSERT INTO {FTS_TABLE}(rowid, content) VALUES (new.id, new.content);
    END""",
    ]


SQLITE_FORWARD = _triggers(suspendable=True)
SQLITE_BACKWARD = _triggers(suspendable=False)

POSTGRESQL_FORWARD = [
    "DROP TRIGGER IF EXISTS memories_memory_size ON memories_memory",
    f"""CREATE TRIGGER memories_memory_size
    AFTER INSERT OR DELETE OR UPDATE OF content ON memories_memory FOR EACH ROW
    WHEN (current_setting('{POSTGRESQL_SETTING}', true) IS DISTINCT FROM 'off')
    EXECUTE FUNCTION memadmin_memory_size()""",
]
POSTGRESQL_BACKWARD = [
    "DROP TRIGGER IF EXISTS memories_memory_size ON memories_memory",
    """CREATE TRIGGER memories_memory_size
    AFTER INSERT OR DELETE OR UPDATE OF content ON memories_memory
    FOR EACH ROW EXECUTE FUNCTION memadmin_memory_size()""",
]
