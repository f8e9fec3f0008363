"""Text search over memories through the database's full-text index, ranked.

SQLite: an FTS5 table over `memories_memory.content` (external content, kept in step by
triggers; migration 0005). PostgreSQL: a generated `tsvector` column with a GIN index (the
database keeps it in step itself). Both split text the same way for ordinary words
(letters and digits; case folded; accents kept) and match each word of the query as a
prefix ("deploy" finds "deploy" and "deployment"), all words required, best match first
(BM25 on SQLite, `ts_rank` on PostgreSQL; newest id first between equals). A fragment
shorter than SEARCH_MIN characters, or one with no word in it, is looked for as a plain
substring instead.

The engines tokenise a few shapes differently (PostgreSQL keeps a file path or a version
number such as `v2.3.1` whole; FTS5 splits it), so only ordinary words are promised the
same hits on both.

Ranking scores every hit, and a common word is in half the store. `RankedSearch` therefore
ranks in the index alone where it can (on SQLite the FTS table, without reading a memory),
counts without ranking, reads the rows of the asked slice only, and keeps the count and
the ranked ids for the next page of the same search while the memories stand still
(`search_cache`). Every statement lets the index drive: SQLite would otherwise run the
whole prefix MATCH once per memory a filter leaves (about a second per thousand memories).
"""

import re
from collections.abc import Iterator

from django.db import connection
from django.db.models import BooleanField, Q, QuerySet
from django.db.models.expressions import RawSQL

from .search_cache import KeptSearch, kept_search, memories_state

SEARCH_MIN = 3  # shorter fragments are matched as substrings
FTS_TABLE = "memories_memory_fts"
SEARCH_COLUMN = "content_search"  # PostgreSQL's generated tsvector
RANK = "search_rank"
# A slice of a filtered search on SQLite first ranks the index's best hits, CHECK_FACTOR times
# the slice's end, and keeps those the filters hold; when that is too few, or the end is past
# CHECK_LIMIT (ids checked in one query), it ranks the filtered hits instead.
CHECK_FACTOR = 2
CHECK_LIMIT = 5_000
KEPT_IDS = 10_000  # ranked ids a kept search holds at most
_WORD = re.compile(r"[^\W_]+")


def search_words(text: str) -> list[str]:
    """Return the words of a query as the index splits them: letters and digits, folded."""
    return [word.casefold() for word in _WORD.findall(text)]


def uses_index(text: str) -> bool:
    """Return True if the text is searched through the index, False for a substring."""
    return len(text.strip()) >= SEARCH_MIN and bool(search_words(text))


def memory_search(memories: QuerySet, text: str) -> "QuerySet | RankedSearch":
    """Return the memories matching the text, best first (or by substring, unordered)."""
    if not uses_index(text):
        return memories.filter(content__icontains=text.strip())
    return RankedSearch(memories, search_words(text))


class RankedSearch:
    """The memories of a queryset whose text has every word of a query, best match first.

    As much of a QuerySet as a paginator and django-tables2 use: `count()`, slicing and
    iteration (lists of memories, best first), `model`, and `order_by()`, which returns the
    plain QuerySet of the hits in that order instead (a sorted column replaces the rank).
    A slice costs a ranking of the hits up to its end, whatever the queryset's ordering.
    """

    def __init__(self, memories: QuerySet, words: list[str]):
        self.memories = memories.order_by()
        self.model = memories.model
        self.words = words
        self._entry: KeptSearch | None = None

    def matches(self) -> QuerySet:
        """Return the hits as a plain QuerySet, unordered."""
        return self.memories.filter(_match(self.words, self.model._meta.db_table))

    def order_by(self, *fields: str) -> QuerySet:
        """Return the hits as a plain QuerySet in this order instead of best first."""
        return self.matches().order_by(*fields)

    def count(self) -> int:
        """Return how many memories match (without ranking them)."""
        entry = self._kept()
        if entry.count is None:
            if connection.vendor == "sqlite" and not self.memories.query.has_filters():
                entry.count = _index_count(self.words)  # every row of the index is a memory
            else:
                entry.count = self.matches().count()
        return entry.count

    def __len__(self) -> int:
        return self.count()

    def __iter__(self) -> Iterator:
        return iter(self[:])

    def __getitem__(self, key):
        if isinstance(key, int):
            found = self[key : key + 1]
            if not found:
                raise IndexError("No memory at this position of the search.")
            return found[0]
        start, stop = key.start or 0, key.stop
        if key.step is not None or start < 0 or (stop is not None and stop < 0):
            raise ValueError("A search is sliced by a start and an end, both positive.")
        stop = self.count() if stop is None else stop
        if stop <= start:
            return []
        ids = self._ranked_ids(stop)[start:stop]
        rows = self.memories.in_bulk(ids)
        return [rows[pk] for pk in ids if pk in rows]

    def _kept(self) -> KeptSearch:
        """Return what the process keeps of this search (see `search_cache`)."""
        if self._entry is None:
            sql, params = self.memories.values("pk").query.sql_with_params()
            key = (connection.alias, tuple(self.words), sql, tuple(params))
            self._entry = kept_search(key, memories_state())
        return self._entry

    def _ranked_ids(self, stop: int) -> list[int]:
        """Return the ids of the first `stop` hits, best first, from what is kept if it can."""
        entry = self._kept()
        if len(entry.ids) >= stop or entry.complete:
            return entry.ids[:stop]
        if connection.vendor == "postgresql":
            ids = list(self._ranked().values_list("pk", flat=True)[:stop])
        else:
            ids = self._sqlite_ranked_ids(stop)
        if stop <= KEPT_IDS:
            entry.ids, entry.complete = ids, len(ids) < stop
        return ids

    def _sqlite_ranked_ids(self, stop: int) -> list[int]:
        """Return the ids of the first `stop` hits, best first, ranking in the index if it can.

        The index alone ranks without reading a memory; a filtered search checks the index's
        best CHECK_FACTOR * stop hits against its filters (one query on ids) and ranks the
        filtered hits only when too few of them pass.
        """
        if not self.memories.query.has_filters():
            return _index_ranked(self.words, stop)
        wanted = stop * CHECK_FACTOR
        if wanted <= CHECK_LIMIT:
            best = _index_ranked(self.words, wanted)
            kept = set(self.memories.filter(pk__in=best).values_list("pk", flat=True))
            ranked = [pk for pk in best if pk in kept]
            if len(ranked) >= stop or len(best) < wanted:
                return ranked[:stop]
        return list(self._ranked().values_list("pk", flat=True)[:stop])

    def _ranked(self) -> QuerySet:
        """Return the hits as a QuerySet ordered best first, the rank computed by the database."""
        table = self.model._meta.db_table
        if connection.vendor == "postgresql":
            rank = f'ts_rank("{table}"."{SEARCH_COLUMN}", to_tsquery(\'simple\', %s))'
            return (
                self.matches()
                .annotate(**{RANK: RawSQL(rank, [_tsquery(self.words)])})
                .order_by(f"-{RANK}", "-pk")
            )
        # The FTS table drives: `+` keeps SQLite from looking a memory's id up in it, which
        # would run the MATCH again for every memory the other filters leave.
        return self.memories.extra(
            tables=[FTS_TABLE],
            where=[f'+"{FTS_TABLE}".rowid = "{table}"."id"', f'"{FTS_TABLE}" MATCH %s'],
            params=[_fts_expression(self.words)],
            select={RANK: f'bm25("{FTS_TABLE}")'},
            order_by=[RANK, "-id"],
        )


def _fts_expression(words: list[str]) -> str:
    return " ".join(f'"{word}"*' for word in words)


def _tsquery(words: list[str]) -> str:
    return " & ".join(f"{word}:*" for word in words)


def _match(words: list[str], table: str):
    """Return the filter of the memories holding every word, for QuerySet.filter()."""
    if connection.vendor == "postgresql":
        vector = f'"{table}"."{SEARCH_COLUMN}"'
        return RawSQL(
            f"{vector} @@ to_tsquery('simple', %s)", [_tsquery(words)], output_field=BooleanField()
        )
    hits = f'SELECT rowid FROM "{FTS_TABLE}" WHERE "{FTS_TABLE}" MATCH %s'
    return Q(pk__in=RawSQL(hits, [_fts_expression(words)]))


def _index_count(words: list[str]) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT count(*) FROM "{FTS_TABLE}" WHERE "{FTS_TABLE}" MATCH %s',
            [_fts_expression(words)],
        )
        return cursor.fetchone()[0]


def _index_ranked(words: list[str], limit: int) -> list[int]:
    """Return the rowids of the index's best `limit` hits (SQLite), best first."""
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT rowid FROM "{FTS_TABLE}" WHERE "{FTS_TABLE}" MATCH %s'
            f' ORDER BY bm25("{FTS_TABLE}"), rowid DESC LIMIT %s',
            [_fts_expression(words), limit],
        )
        return [row[0] for row in cursor.fetchall()]


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
