"""Rows a sync inserts in bulk are searchable and sized, and nobody else's triggers stop.

The sync turns the per-row insert triggers off on its own connection and indexes and sizes
each chunk set-based (`memadmin.memories.bulk_index`; PostgreSQL computes the search vector
itself). Either way the result must be the one the triggers give, on both engines.
"""

import sqlite3

import pytest
from django.db import connection, connections, transaction

from memadmin.core.hashing import content_digest64
from memadmin.core.tokens import HeuristicCounter
from memadmin.interop.writing import writer
from memadmin.interop.writing.services import context_db_sync
from memadmin.interop.writing.writer import SyncWriter
from memadmin.memories.bulk_index import POSTGRESQL_SETTING, TRIGGERS_FUNCTION, indexed_in_bulk
from memadmin.memories.models import Memory, MemorySize
from memadmin.memories.search import FTS_TABLE, memory_search
from memadmin.memories.services import memory_create
from tests.interop.conftest import rows_for
from tests.upstream_store import build_store, make_row

pytestmark = pytest.mark.django_db(transaction=True)
COUNT = HeuristicCounter().count


def sizes_in_step() -> bool:
    """Return whether every memory has its size and its content digest, and nothing else does."""
    stored = {pk: (tokens, digest) for pk, tokens, digest in MemorySize.objects.values_list()}
    return stored == {
        pk: (COUNT(text), content_digest64(text))
        for pk, text in Memory.objects.values_list("pk", "content")
    }


def index_in_step() -> None:
    """On SQLite, FTS5's own check: the index holds exactly the memories' texts."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('integrity-check', 1)"
            )


def search(text: str) -> set[str]:
    return {memory.content for memory in memory_search(Memory.objects.all(), text)}


def test_a_first_sync_in_chunks_is_searchable_and_sized(tmp_path, monkeypatch):
    """Every chunk's rows are found by search and have their sizes, as the triggers give."""
    monkeypatch.setattr(writer, "CHUNK_FIRST", 40)
    monkeypatch.setattr(writer, "CHUNK_MAX", 40)
    rows = [*rows_for(150), make_row(content="Zeppelins dock at hangar 🚀 east.")]
    run = context_db_sync(path=build_store(tmp_path / "context.db", rows=rows))
    assert run.new == Memory.objects.count() == 151
    assert sizes_in_step()
    index_in_step()
    assert search("zeppelin hangar") == {"Zeppelins dock at hangar 🚀 east."}
    assert len(search("release script")) == 150
    assert search("Fact 149") == {"Fact 149: the release script is scripts/release.sh."}


def test_saves_after_a_bulk_sync_are_indexed_by_their_triggers(project, tmp_path):
    """The triggers are back on once the sync is done: a save, an edit and a delete keep up."""
    context_db_sync(path=build_store(tmp_path / "context.db", rows=rows_for(20)))
    memory = memory_create(
        project=project, category="OPS_RULES", content="Quokkas nap.", actor="agent"
    )
    assert search("quokka") == {"Quokkas nap."}
    Memory.objects.filter(pk=memory.pk).update(content="Wombats dig.")
    Memory.objects.filter(upstream_id=3).delete()
    assert search("quokka") == set() and search("wombat") == {"Wombats dig."}
    assert sizes_in_step()
    index_in_step()


def triggers_on(database) -> bool:
    """Return whether the insert triggers run on ``database``, as the triggers ask it."""
    with database.cursor() as cursor:
        if database.vendor == "postgresql":
            cursor.execute("SELECT current_setting(%s, true)", [POSTGRESQL_SETTING])
            return cursor.fetchone()[0] != "off"
        cursor.execute(f"SELECT {TRIGGERS_FUNCTION}()")
        return bool(cursor.fetchone()[0])


def test_the_triggers_stay_on_for_every_other_connection(project):
    """While one connection inserts in bulk, another connection's triggers still run."""
    answers = []

    def insert():
        other = connections.create_connection("default")
        try:
            answers.append(triggers_on(other))
        finally:
            other.close()
        answers.append(triggers_on(connection))

    with transaction.atomic():
        with indexed_in_bulk([1]):
            insert()
        answers.append(triggers_on(connection))
    assert answers == [True, False, True]


def test_a_failed_insert_turns_the_triggers_back_on(project):
    """An insert that fails leaves the connection's triggers on for the next save."""

    def insert():
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError), transaction.atomic(), indexed_in_bulk([1]):
        insert()
    memory_create(project=project, category="OPS_RULES", content="Quokkas nap.", actor="agent")
    assert search("quokka") == {"Quokkas nap."}
    assert sizes_in_step()


def test_outside_a_transaction_it_is_refused():
    """Indexing must commit with the rows: indexed_in_bulk outside a transaction is an error."""
    with pytest.raises(RuntimeError, match="inside a transaction"), indexed_in_bulk([1]):
        pass


def test_a_failed_sync_leaves_the_index_as_it_was(project, tmp_path, monkeypatch):
    """A sync undone after its new rows went in takes their index entries and sizes out too."""
    memory_create(project=project, category="OPS_RULES", content="Quokkas nap.", actor="agent")
    monkeypatch.setattr(writer, "CHUNK_FIRST", 10)
    monkeypatch.setattr(writer, "CHUNK_MAX", 10)

    def broken(self):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(SyncWriter, "audit", broken)
    with pytest.raises(RuntimeError):
        context_db_sync(path=build_store(tmp_path / "context.db", rows=rows_for(35)))
    assert Memory.objects.count() == 1
    assert search("release") == set() and search("quokka") == {"Quokkas nap."}
    assert sizes_in_step()
    index_in_step()


def test_a_later_sync_keeps_the_index_when_counters_or_texts_change(tmp_path):
    """Counters bumped upstream leave the entries as they are; a new text is found by its words."""
    path = build_store(tmp_path / "context.db", rows=rows_for(30))
    context_db_sync(path=path)
    with sqlite3.connect(path) as store:
        store.execute(
            "UPDATE memories SET seen_count = seen_count + 1, updated_at = updated_at + 9"
        )
        store.execute(
            "UPDATE memories SET content = 'Fact 7: kiwis ship on Fridays.', "
            "normalized_hash = ? WHERE id = 7",
            ("7" * 32,),
        )
    store.close()
    run = context_db_sync(path=path)
    assert run.changed == 30
    assert search("kiwis friday") == {"Fact 7: kiwis ship on Fridays."}
    assert len(search("release script")) == 29
    assert sizes_in_step()
    index_in_step()
