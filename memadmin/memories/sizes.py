"""Each memory's size in heuristic tokens and its content digest, kept by database triggers
(see `MemorySize`).

The size is magic-context's fallback count, `ceil(UTF-16 length / 3.5)`
(`memadmin.core.tokens.HeuristicCounter`). On PostgreSQL it is a SQL function (astral
characters, two UTF-16 units each, found by a regular expression); on SQLite, which has
none, the same Python function the counter uses, registered on every connection as
`memadmin_heuristic_tokens`.

The digest (since migration 0010) is `memadmin.core.hashing.content_digest64`: the first 8
bytes of the content's MD5 as a signed 64-bit integer. PostgreSQL computes it natively
(`md5()` of the UTF-8 text), SQLite calls the same Python function, registered as
`memadmin_content_digest`. The ledger keys a memory line's stored token count by it
(`memadmin.ledger.count_cache`), so a warm preview neither renders nor hashes 100,000 lines.

The statement lists below the first ones are what migrations 0004 and 0010 execute; 0004's
are kept as they were (it runs before the digest column exists).
"""

from django.db.backends.signals import connection_created

from memadmin.core.hashing import content_digest64
from memadmin.core.tokens import HeuristicCounter

SQL_FUNCTION = "memadmin_heuristic_tokens"
DIGEST_FUNCTION = "memadmin_content_digest"
_count = HeuristicCounter().count


def heuristic_tokens(text: str | None) -> int | None:
    """Return the heuristic count of a memory's text (None for none)."""
    return None if text is None else _count(text)


def content_digest(text: str | None) -> int | None:
    """Return the stored digest of a memory's text (None for none)."""
    return None if text is None else content_digest64(text)


def register_sqlite_function(sender, connection, **kwargs) -> None:
    """Give a new SQLite connection the functions the size triggers call."""
    if connection.vendor == "sqlite":
        raw = connection.connection
        raw.create_function(SQL_FUNCTION, 1, heuristic_tokens, deterministic=True)
        raw.create_function(DIGEST_FUNCTION, 1, content_digest, deterministic=True)


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


SIZE_COLUMNS = "memory_id, tokens, content_digest"  # what 0010's triggers write


def _postgresql_size_function(digest: bool) -> str:
    columns = SIZE_COLUMNS if digest else "memory_id, tokens"
    values = f"{SQL_FUNCTION}(NEW.content)" + (
        f", {DIGEST_FUNCTION}(NEW.content)" if digest else ""
    )
    update = "tokens = EXCLUDED.tokens" + (
        ", content_digest = EXCLUDED.content_digest" if digest else ""
    )
    return f"""CREATE OR REPLACE FUNCTION memadmin_memory_size() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        DELETE FROM memories_memorysize WHERE memory_id = OLD.id;
        RETURN OLD;
      END IF;
      INSERT INTO memories_memorysize ({columns})
      VALUES (NEW.id, {values})
      ON CONFLICT (memory_id) DO UPDATE SET {update};
      RETURN NEW;
    END $$"""


POSTGRESQL_FORWARD = [
    f"""CREATE OR REPLACE FUNCTION {SQL_FUNCTION}(t text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT AS $$
      SELECT (2 * (2 * char_length(t)
        - char_length(regexp_replace(t, '[\\U00010000-\\U0010FFFF]', '', 'g'))) + 6) / 7
    $$""",
    _postgresql_size_function(digest=False),
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


# Migration 0010: the size triggers write the content digest too, keeping 0009's conditions
# (the insert trigger runs WHEN memadmin_row_triggers(), the update one when the text
# changed; see `bulk_index`), and every existing row gets its digest.


def sqlite_size_triggers(digest: bool) -> list[str]:
    """Return the statements that (re)create the SQLite size triggers, writing the digest or
    not (migration 0010 forward, and back to 0009's)."""
    columns = SIZE_COLUMNS if digest else "memory_id, tokens"
    values = f"{SQL_FUNCTION}(new.content)" + (
        f", {DIGEST_FUNCTION}(new.content)" if digest else ""
    )
    return [
        "DROP TRIGGER IF EXISTS memories_memory_size_insert",
        f"""CREATE TRIGGER memories_memory_size_insert AFTER INSERT ON memories_memory
    WHEN memadmin_row_triggers() BEGIN
      INSERT OR REPLACE INTO memories_memorysize ({columns})
      VALUES (new.id, {values});
    END""",
        "DROP TRIGGER IF EXISTS memories_memory_size_update",
        f"""CREATE TRIGGER memories_memory_size_update AFTER UPDATE OF content ON memories_memory
    WHEN old.content IS NOT new.content
    BEGIN
      INSERT OR REPLACE INTO memories_memorysize ({columns})
      VALUES (new.id, {values});
    END""",
    ]


SQLITE_DIGEST_FORWARD = [
    *sqlite_size_triggers(digest=True),
    f"""INSERT OR REPLACE INTO memories_memorysize ({SIZE_COLUMNS})
    SELECT id, {SQL_FUNCTION}(content), {DIGEST_FUNCTION}(content) FROM memories_memory""",
]
SQLITE_DIGEST_BACKWARD = sqlite_size_triggers(digest=False)


# The trigger itself (0009's, suspendable) calls memadmin_memory_size(): only the function
# changes.
POSTGRESQL_DIGEST_FORWARD = [
    f"""CREATE OR REPLACE FUNCTION {DIGEST_FUNCTION}(t text) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT AS $$
      SELECT ('x' || substr(md5(t), 1, 16))::bit(64)::bigint
    $$""",
    _postgresql_size_function(digest=True),
    f"""INSERT INTO memories_memorysize ({SIZE_COLUMNS})
    SELECT id, {SQL_FUNCTION}(content), {DIGEST_FUNCTION}(content) FROM memories_memory
    ON CONFLICT (memory_id) DO UPDATE
    SET tokens = EXCLUDED.tokens, content_digest = EXCLUDED.content_digest""",
]
POSTGRESQL_DIGEST_BACKWARD = [
    _postgresql_size_function(digest=False),
    f"DROP FUNCTION IF EXISTS {DIGEST_FUNCTION}(text)",
]
