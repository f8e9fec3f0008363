"""The incremental sync reads what changed since its watermarks, and the periodic refresh
records only the runs that changed something or failed."""

import sqlite3
import time

import pytest

from memadmin.core.hashing import normalized_hash as memory_normalized_hash
from memadmin.interop.models import StoreWatermark, SyncRun
from memadmin.interop.planning import plan
from memadmin.interop.worker import incremental
from memadmin.interop.worker.incremental import stores_refresh
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.interop.conftest import OTHER_PROJECT, PROJECT, rows_for
from tests.upstream_store import BASE_TIME_MS, make_row

pytestmark = pytest.mark.django_db

LATER = BASE_TIME_MS + 3_600_000


@pytest.fixture(autouse=True)
def _fresh_refresh_state(monkeypatch):
    monkeypatch.setattr(incremental, "_last_full", {})
    monkeypatch.setattr(incremental, "_started", time.monotonic())


@pytest.fixture
def planned(monkeypatch):
    """Return the list of how many store rows each plan was given."""
    sizes, given = [], []
    add, finish = plan.Planner.add, plan.Planner.finish

    def add_spy(planner, memories, *rest):
        given.append(len(memories))
        return add(planner, memories, *rest)

    def finish_spy(planner):
        sizes.append(sum(given))
        given.clear()
        return finish(planner)

    monkeypatch.setattr(plan.Planner, "add", add_spy)
    monkeypatch.setattr(plan.Planner, "finish", finish_spy)
    return sizes


def _execute(path, *statements):
    writer = sqlite3.connect(path, isolation_level=None)
    for statement, params in statements:
        writer.execute(statement, params)
    writer.close()


def spread_rows(count: int) -> list[dict]:
    """Return rows written an hour apart, the newest first, as a store that has lived has."""
    rows = rows_for(count)
    for n, row in enumerate(rows):
        moment = BASE_TIME_MS - n * 3_600_000
        row.update(first_seen_at=moment, created_at=moment, updated_at=moment, last_seen_at=moment)
    return rows


def _incremental(path):
    return context_db_sync(path=path, incremental=True, record_empty=False)


def test_nothing_changed_records_nothing_and_notes_the_check(store, planned):
    """With no mark moved, nothing is read or planned, no run recorded, the check time kept."""
    path = store(rows=rows_for(50))
    context_db_sync(path=path)
    before = StoreWatermark.objects.get().checked_at
    assert _incremental(path) is None
    assert planned == [50]
    assert SyncRun.objects.count() == 1
    assert StoreWatermark.objects.get().checked_at >= before


def test_a_change_a_new_row_and_a_deletion_are_found_reading_only_those(store, planned):
    """An edited row, a new row and a deleted row come in; only those (and the newest) are read."""
    path = store(rows=spread_rows(50))
    context_db_sync(path=path)
    text = "Edited upstream."
    _execute(
        path,
        (
            "UPDATE memories SET content = ?, normalized_hash = ?, updated_at = ? WHERE id = 7",
            (text, memory_normalized_hash(text), LATER),
        ),
        ("DELETE FROM memories WHERE id = 9", ()),
        (
            "INSERT INTO memories (project_path, category, content, normalized_hash, "
            "first_seen_at, created_at, updated_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                PROJECT,
                "NAMING",
                "New row.",
                memory_normalized_hash("New row."),
                LATER,
                LATER,
                LATER,
                LATER,
            ),
        ),
    )
    run = _incremental(path)
    assert (run.new, run.changed, run.gone, run.unchanged) == (1, 1, 1, 48)
    assert planned[-1] == 3  # the edited row, the new one, and row 1, as new as the watermark
    assert Memory.objects.get(upstream_id=7).content == text
    assert Memory.objects.get(upstream_id=9).upstream_gone_at is not None
    assert _incremental(path) is None


def test_a_change_seen_only_in_the_mutation_log_is_found(store):
    """An archive that moved no time column is caught by the mutation log's watermark."""
    path = store(rows=rows_for(5))
    context_db_sync(path=path)
    _execute(
        path,
        ("UPDATE memories SET status = 'archived' WHERE id = 2", ()),
        (
            "INSERT INTO memory_mutation_log (project_path, mutation_type, target_memory_id, "
            "queued_at) VALUES (?, 'archive', 2, ?)",
            (PROJECT, BASE_TIME_MS),
        ),
    )
    run = _incremental(path)
    assert run.changed == 1
    assert Memory.objects.get(upstream_id=2).status == "archived"


def test_periodic_refresh_records_a_refusal_once(store):
    """A bad row upstream is refused once; later refreshes skip the unchanged store."""
    path = store(rows=rows_for(3))
    context_db_sync(path=path)
    _execute(
        path, ("UPDATE memories SET content = ?, updated_at = ? WHERE id = 1", ("a\x00b", LATER))
    )
    assert stores_refresh() == {str(path): "refused"}
    assert stores_refresh() == {str(path): "skipped: unchanged since its last refusal"}
    assert SyncRun.objects.filter(outcome="refused").count() == 1


def test_periodic_refresh_records_only_runs_that_changed_something(store):
    """Refreshes of an unchanged store add no run; one that brings a change adds one."""
    path = store(rows=rows_for(3))
    context_db_sync(path=path)
    assert stores_refresh() == {str(path): "unchanged"}
    assert stores_refresh() == {str(path): "unchanged"}
    _execute(path, ("UPDATE memories SET importance = 80, updated_at = ? WHERE id = 3", (LATER,)))
    assert stores_refresh() == {str(path): "synced: 0 new, 1 changed, 0 gone"}
    assert SyncRun.objects.count() == 2


def test_a_one_project_sync_leaves_the_watermark_alone(store):
    """After a sync of one project, the next incremental sync still reads the others' rows."""
    path = store(rows=[*rows_for(2), make_row(content="Other.", project_path=OTHER_PROJECT)])
    context_db_sync(path=path, project=PROJECT)
    assert not StoreWatermark.objects.exists()
    run = _incremental(path)
    assert (run.new, run.unchanged) == (1, 2)


def test_a_workers_first_refresh_reads_only_what_changed(store, planned, monkeypatch):
    """A worker just started (a restart) does not re-read the whole store: its first
    refresh is incremental; the whole store is read FULL_EVERY_SECONDS after its start."""
    path = store(rows=spread_rows(30))
    context_db_sync(path=path)
    planned.clear()
    _execute(path, ("UPDATE memories SET importance = 80, updated_at = ? WHERE id = 3", (LATER,)))
    assert stores_refresh() == {str(path): "synced: 0 new, 1 changed, 0 gone"}
    assert planned == [2]  # the changed row, and row 1, as new as the watermark
    planned.clear()
    monkeypatch.setattr(incremental, "_started", time.monotonic() - incremental.FULL_EVERY_SECONDS)
    monkeypatch.setattr(incremental, "_last_full", {})
    assert stores_refresh() == {str(path): "unchanged"}
    assert planned == [30]
