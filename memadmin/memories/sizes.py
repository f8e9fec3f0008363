"""Each memory's size in heuristic tokens, kept by database triggers (see `MemorySize`).

The size is magic-context's fallback count, `ceil(UTF-16 length / 3.5)`
(`memadmin.core.tokens.HeuristicCounter`). On PostgreSQL it is a SQL function (astral
characters, two UTF-16 units each, found by a regular expression); on SQLite, which has
none, the same Python function the counter uses, registered on every connection as
`memadmin_heuristic_tokens`.
"""

from django.db.backends.signals import connection_created

from memadmin.core.tokens import HeuristicCounter

SQL_FUNCTION = "memadmin_heuristic_tokens"
_count = HeuristicCounter().count


def heuristic_tokens(text: str | None) -> int | None:
    """Return the heuristic count of a memory's text (None for none)."""
    return None if text is None else _count(text)


def register_sqlite_function(sender, connection, **kwargs) -> None:
    """Give a new SQLite connection the function the size triggers call."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(SQL_FUNCTION, 1, heuristic_tokens, deterministic=True)


def connect() -> None:
    """Register the SQLite function on every connection from now on."""
    connection_created.connect(register_sqlite_function, dispatch_uid="memadmin-sizes")


SQLITE_FORWARD = [
    f"""CREATE TRIGGER memories_memory_size_insert AFTER INSERT ON memories_memory BEGIN
      INSERT OR REPLACE INTO memories_memorysize (memory_id, tokens)
      VALUES (new.id, {SQL_FUNCTION}(new.content));
    END""",
    f"""CREATE TRIGGER memories_memory_size_update AFTER UPDATE OF content ON memories_memory
    BEGIN
      INSERT OR REPLACE INTO memories_memorysize (memory_id, tokens)
      VALUES (new.id, {SQL_FUNCTION}(new.content));
    END""",
    """CREATE TRIGGER memories_memory_size_delete AFTER DELETE ON memories_memory BEGIN
      DELETE FROM memories_memorysize WHERE memory_id = old.id;
    END""",
    f"""INSERT OR REPLACE INTO memories_memorysize (memory_id, tokens)
    SELECT id, {SQL_FUNCTION}(content) FROM memories_memory""",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS memories_memory_size_insert",
    "DROP TRIGGER IF EXISTS memories_memory_size_update",
    "DROP TRIGGER IF EXISTS memories_memory_size_delete",
]
POSTGRESQL_FORWARD = [
    f"""CREATE OR REPLACE FUNCTION {SQL_FUNCTION}(t text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT AS $$
      SELECT (2 * (2 * char_length(t)
        - char_length(regexp_replace(t, '[\\U00010000-\\U0010FFFF]', '', 'g'))) + 6) / 7
    $$""",
    f"""CREATE OR REPLACE FUNCTION memadmin_memory_size() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        DELETE FROM memories_memorysize WHERE memory_id = OLD.id;
        RETURN OLD;
      END IF;
      INSERT INTO memories_memorysize (memory_id, tokens)
      VALUES (NEW.id, {SQL_FUNCTION}(NEW.content))
      ON CONFLICT (memory_id) DO UPDATE SET tokens = EXCLUDED.tokens;
      RETURN NEW;
    END $$""",
    """CREATE TRIGGER memories_memory_size
    AFTER INSERT OR DELETE OR UPDATE OF content ON memories_memory
    FOR EACH ROW EXECUTE FUNCTION memadmin_memory_size()""",
    f"""INSERT INTO memories_memorysize (memory_id, tokens)
    SELECT id, {SQL_FUNCTION}(content) FROM memories_memory
    ON CONFLICT (memory_id) DO UPDATE SET tokens = EXCLUDED.tokens""",
]
POSTGRESQL_BACKWARD = [
    "DROP TRIGGER IF EXISTS memories_memory_size ON memories_memory",
    "DROP FUNCTION IF EXISTS memadmin_memory_size()",
    f"DROP FUNCTION IF EXISTS {SQL_FUNCTION}(text)",
]
