"""The count and the best ids of the last few text searches, kept by the process.

Ranking the hits of a common word scores every one of them (50,000 in a store of
100,000), and counting a filtered search reads each hit's row: more than the rest of the
page. A person pages through the same search, sorts it, comes back to it; the index and the
rows have not changed in between. So a process keeps, for the last KEPT searches (the
words and the filters' SQL), the count and the ranked ids worked out so far, under the
memories' *state*: the store version that `audit_record` moves on and the newest history
version of a memory, which every write of a memory moves (the services', a merge's, and a
sync's bulk rows, each written with its history version). A search whose state moved is
worked out again.
"""

from dataclasses import dataclass, field

from django.db import connection

from memadmin.audit.models import StoreVersion
from memadmin.core.process_cache import ProcessCache

from .models import Memory

KEPT = 16  # searches a process keeps (each: a count and at most a few thousand ids)

State = tuple[int, int]


@dataclass
class KeptSearch:
    """What is known of one search at one state of the memories (kept under that state)."""

    count: int | None = None
    ids: list[int] = field(default_factory=list)  # the best hits, best first
    complete: bool = False  # ids holds every hit


# By the words and the filters' SQL, under the memories' state.
kept_searches: ProcessCache[KeptSearch] = ProcessCache("text searches", limit=KEPT)


def memories_state() -> State:
    """Return the store version and the newest memory history id, in one query."""
    quote = connection.ops.quote_name
    versions = quote(Memory.history.model._meta.db_table)
    sql = (
        f"SELECT (SELECT {quote('version')} FROM {quote(StoreVersion._meta.db_table)}"
        f" WHERE id = 1), (SELECT MAX({quote('history_id')}) FROM {versions})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return tuple(value or 0 for value in cursor.fetchone())


def kept_search(key: tuple, state: State) -> KeptSearch:
    """Return what is kept of the search at this state, made empty if its state moved."""
    return kept_searches.get(key, state, lambda kept: KeptSearch())
