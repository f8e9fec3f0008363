"""A sync writes in short transactions, and is still all or nothing to everyone else.

New rows go in by chunks first; the last transaction changes existing rows only if nobody
changed a memory in scope since the plan was made (else the sync plans again); a failure at
any step takes every new row out again and is recorded as a failed run with its reason.
"""

import sqlite3

import pytest

from memadmin.audit.context import acting
from memadmin.audit.models import AuditEvent
from memadmin.interop.models import SyncRun, UpstreamStore
from memadmin.interop.writing import moved, writer
from memadmin.interop.writing.services import context_db_sync
from memadmin.interop.writing.writer import SyncWriter
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from memadmin.projects.models import Project
from tests.interop.conftest import PROJECT, rows_for
from tests.meanwhile import Meanwhile
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db(transaction=True)


def test_new_rows_go_in_by_chunks(store, monkeypatch):
    """A large sync commits its new rows in many small transactions, every row with one version."""
    monkeypatch.setattr(writer, "CHUNK_FIRST", 50)
    monkeypatch.setattr(writer, "CHUNK_MAX", 50)
    chunks = []
    monkeypatch.setattr(SyncWriter, "written", lambda self, rows: chunks.append(len(rows)))
    run = context_db_sync(path=store(rows=rows_for(400)))
    assert run.new == 400
    assert chunks[:8] == [50] * 8
    assert Memory.objects.count() == Memory.history.count() == 400


def test_a_reference_to_a_row_of_a_later_chunk_is_kept(store, monkeypatch):
    """A row superseded by a row of a later chunk points at it once the sync is done."""
    monkeypatch.setattr(writer, "CHUNK_FIRST", 2)
    monkeypatch.setattr(writer, "CHUNK_MAX", 2)
    rows = [*rows_for(5), make_row(content="Old.", status="archived", superseded_by_memory_id=6)]
    rows[0]["superseded_by_memory_id"] = 5
    context_db_sync(path=store(rows=rows))
    first = Memory.objects.get(upstream_id=1)
    assert first.superseded_by.upstream_id == 5
    assert first.history.get().superseded_by_id == first.superseded_by_id


def test_a_crash_after_new_rows_leaves_nothing_and_is_recorded(store, monkeypatch):
    """A failure in the last step takes the new rows and projects out and records why."""

    def broken(self):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(SyncWriter, "audit", broken)
    with pytest.raises(RuntimeError):
        context_db_sync(path=store(rows=rows_for(30)))
    assert Memory.objects.count() == Memory.history.filter(history_type="+").count() == 0
    assert not Project.objects.filter(identity=PROJECT).exists()
    assert not UpstreamStore.objects.exists()
    run = SyncRun.objects.get()
    assert run.outcome == "failed"
    assert "disk on fire" in run.problems[0]["problem"]


def test_an_edit_made_while_the_sync_writes_makes_it_plan_again(store, monkeypatch):
    """A save between the plan and the last transaction, to a row the plan leaves alone, is kept.

    The sync writes the rows it planned (row 2) and does not plan again: the saved row is
    not one it writes, and the save went through to the store, so the two agree. (A save to
    a row the plan writes makes it plan again: `test_sync_starvation.py`.)
    """
    path = store(rows=rows_for(3))
    context_db_sync(path=path)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("UPDATE memories SET importance = 90, updated_at = updated_at + 5 WHERE id = 2")
    writer.close()
    memory = Memory.objects.get(upstream_id=1)
    edits = []
    new_rows = SyncWriter.new_rows

    def edit_meanwhile(self):
        new_rows(self)
        if not edits:
            with acting(actor="agent", new_change=True):
                edits.append(memory_update(memory=memory, actor="agent", importance=7))

    monkeypatch.setattr(SyncWriter, "new_rows", edit_meanwhile)
    run = context_db_sync(path=path)
    assert run.changed == 1
    assert Memory.objects.get(upstream_id=2).importance == 90
    assert Memory.objects.get(upstream_id=1).importance == 7
    reader = sqlite3.connect(path)
    assert reader.execute("SELECT importance FROM memories WHERE id = 1").fetchone() == (7,)
    reader.close()
    assert not AuditEvent.objects.filter(action="changed_upstream", object_id=str(memory.pk))


def test_a_save_arriving_after_the_last_check_waits_for_the_sync_and_stands(store, monkeypatch):
    """A save that comes once the last transaction has asked for saves waits, then is kept.

    The agent has read the row again (its counter moves, so the plan changes the row); the
    sync has asked which rows were saved since its plan (none); a person then saves the row.
    On PostgreSQL the save went through before the sync's UPDATE, which then wrote the plan's
    value over it (seen on CI): the save must wait until the sync commits, as SQLite's write
    lock makes it, and then stand in memadmin and in the store.
    """
    path = store(rows=rows_for(3))
    context_db_sync(path=path)
    agent = sqlite3.connect(path, isolation_level=None)
    agent.execute("UPDATE memories SET seen_count = seen_count + 1 WHERE id = 2")
    agent.close()
    memory = Memory.objects.get(upstream_id=2)

    def save():
        with acting(actor="agent", new_change=True):
            return memory_update(memory=memory, actor="agent", importance=7)

    saver = Meanwhile(save)
    asked = moved._moved_since

    def then_a_save(mark, project_pks):
        answer = asked(mark, project_pks)
        saver.start()
        return answer

    monkeypatch.setattr(moved, "_moved_since", then_a_save)
    run = context_db_sync(path=path)
    saved = saver.outcome()
    assert run.changed == 1
    assert isinstance(saved, Memory), f"the save did not go through: {saved!r}"
    assert Memory.objects.get(upstream_id=2).importance == 7
    assert Memory.objects.get(upstream_id=2).seen_count == 2
    reader = sqlite3.connect(path)
    assert reader.execute("SELECT importance FROM memories WHERE id = 2").fetchone() == (7,)
    reader.close()
