"""Text search over memories through the database's full-text index, ranked.

SQLite: an FTS5 table over `memories_memory.content` (external content, kept in step by
triggers; migration 0005). PostgreSQL: a generated `tsvector` column with a GIN index (the
database keeps it in step itself). Both split text the same way for ordinary words
(letters and digits; case folded; accents kept) and match each word of the query as a
prefix ("deploy" finds "deploy" and "deployment"), all words required, best match first
(BM25 on SQLite, `ts_rank` on PostgreSQL). A fragment shorter than SEARCH_MIN characters,
or one with no word in it, is looked for as a plain substring instead.

The engines tokenise a few shapes differently (PostgreSQL keeps a file path or a version
number such as `v2.3.1` whole; FTS5 splits it), so only ordinary words are promised the
same hits on both.
"""

import re

from django.db import connection
from django.db.models import QuerySet

SEARCH_MIN = 3  # shorter fragments are matched as substrings
FTS_TABLE = "memories_memory_fts"
SEARCH_COLUMN = "content_search"  # PostgreSQL's generated tsvector
RANK = "search_rank"
_WORD = re.compile(r"[^\W_]+")


def search_words(text: str) -> list[str]:
    """Return the words of a query as the index splits them: letters and digits, folded."""
    return [word.casefold() for word in _WORD.findall(text)]


def uses_index(text: str) -> bool:
    """Return True if the text is searched through the index, False for a substring."""
    return len(text.strip()) >= SEARCH_MIN and bool(search_words(text))


def memory_search(memories: QuerySet, text: str) -> QuerySet:
    """Return the memories matching the text, best first (or by substring, unordered)."""
    if not uses_index(text):
        return memories.filter(content__icontains=text.strip())
    words = search_words(text)
    table = memories.model._meta.db_table
    if connection.vendor == "postgresql":
        query = " & ".join(f"{word}:*" for word in words)
        vector = f'"{table}"."{SEARCH_COLUMN}"'
        return memories.extra(
            where=[f"{vector} @@ to_tsquery('simple', %s)"],
            params=[query],
            select={RANK: f"ts_rank({vector}, to_tsquery('simple', %s))"},
            select_params=[query],
            order_by=[f"-{RANK}", "-id"],
        )
    expression = " ".join(f'"{word}"*' for word in words)
    return memories.extra(
        tables=[FTS_TABLE],
        where=[f'"{FTS_TABLE}".rowid = "{table}"."id"', f'"{FTS_TABLE}" MATCH %s'],
        params=[expression],
        select={RANK: f'"{FTS_TABLE}".rank'},
        order_by=[RANK, "-id"],
    )


SQLITE_FORWARD = [
    f"""CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(
      content, content='memories_memory', content_rowid='id',
      tokenize="unicode61 remove_diacritics 0")""",
    f"""CREATE TRIGGER memories_memory_fts_insert AFTER INSERT ON memories_memory BEGIN
      INSERT INTO {FTS_TABLE}(rowid, content) VALUES (new.id, new.content);
    END""",
    f"""CREATE TRIGGER memories_memory_fts_delete AFTER DELETE ON memories_memory BEGIN
      INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content) VALUES ('delete', old.id, old.content);
    END""",
    f"""CREATE TRIGGER memories_memory_fts_update AFTER UPDATE OF content ON memories_memory
    BEGIN
      INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content) VALUES ('delete', old.id, old.content);
      INSERT INTO {FTS_TABLE}(rowid, content) VALUES (new.id, new.content);
    END""",
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS memories_memory_fts_insert",
    "DROP TRIGGER IF EXISTS memories_memory_fts_delete",
    "DROP TRIGGER IF EXISTS memories_memory_fts_update",
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
]
POSTGRESQL_FORWARD = [
    f"""ALTER TABLE memories_memory ADD COLUMN {SEARCH_COLUMN} tsvector
    GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED""",
    f"CREATE INDEX memories_memory_content_search ON memories_memory USING GIN ({SEARCH_COLUMN})",
]
POSTGRESQL_BACKWARD = [
    "DROP INDEX IF EXISTS memories_memory_content_search",
    f"ALTER TABLE memories_memory DROP COLUMN IF EXISTS {SEARCH_COLUMN}",
]
