"""Bad input refuses the whole sync, names the row, column and problem, and imports nothing."""

import sqlite3

import pytest

from memadmin.audit.models import AuditEvent
from memadmin.interop.models import SyncRun
from memadmin.interop.writing.services import SyncRefused, context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from memadmin.projects.models import Project
from tests.interop.conftest import PROJECT, rows_for
from tests.upstream_store import (
    make_row,
    write_not_sqlite,
    write_sqlite_without_memories,
    write_truncated_copy,
)

pytestmark = pytest.mark.django_db


def refused(path, **options) -> SyncRefused:
    """Run a sync that must be refused; check nothing was imported; return the refusal."""
    counts = (Project.objects.count(), Memory.objects.count(), Memory.history.count())
    events = AuditEvent.objects.count()
    with pytest.raises(SyncRefused) as caught:
        context_db_sync(path=path, **options)
    assert (Project.objects.count(), Memory.objects.count(), Memory.history.count()) == counts
    assert AuditEvent.objects.count() == events
    run = SyncRun.objects.latest("id")
    assert run.outcome == "refused"
    assert run == caught.value.run
    return caught.value


def test_missing_path(tmp_path):
    """A path with no file behind it is named."""
    error = refused(tmp_path / "nowhere.db")
    assert error.messages == [f"{tmp_path / 'nowhere.db'}: no such file"]


def test_not_sqlite(tmp_path):
    """A file that is not SQLite is said to be so."""
    error = refused(write_not_sqlite(tmp_path / "notes.db"))
    assert "not an SQLite database" in error.messages[0]


def test_sqlite_but_not_a_store(tmp_path):
    """An SQLite file without a memories table is not a magic-context store."""
    error = refused(write_sqlite_without_memories(tmp_path / "other.db"))
    assert "not a magic-context store" in error.messages[0]


def test_locked_store(store):
    """A store another process holds under an exclusive lock is reported locked."""
    path = store(wal=False)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("UPDATE memories SET seen_count = 9")
    try:
        error = refused(path, timeout=0.05)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert "locked" in error.messages[0]


def test_truncated_store(store, tmp_path):
    """A store cut short is reported damaged."""
    path = write_truncated_copy(store(rows=rows_for(1500)), tmp_path / "cut.db", keep=0.5)
    error = refused(path)
    assert "damaged" in error.messages[0]


def test_invalid_json_in_merged_from(store):
    """Text that is not JSON in merged_from names its row and column; no row is imported."""
    rows = [*rows_for(3), make_row(content="Merged.", merged_from="[1, 2")]
    error = refused(store(rows=rows))
    assert error.messages == ["memories row 4, column merged_from: '[1, 2' is not valid JSON"]
    assert error.run.problems == [
        {
            "table": "memories",
            "row": 4,
            "column": "merged_from",
            "problem": "'[1, 2' is not valid JSON",
        }
    ]


def test_null_where_upstream_has_not_null(store):
    """NULL in a NOT NULL column is named with its row, even in a store without constraints."""
    rows = [*rows_for(2), make_row(content="No time.", first_seen_at=None)]
    error = refused(store(rows=rows, constraints=False))
    assert error.messages == [
        "memories row 3, column first_seen_at: is NULL, but upstream always writes a value here"
    ]


def test_every_problem_is_listed(store):
    """All problems come back at once, each with its row and column."""
    rows = [
        make_row(content="Bad list.", merged_from='["a"]'),
        make_row(content="   "),
        make_row(content="Bad status.", status="gone"),
        make_row(content="Bad project.", project_path="/home/me/work"),
    ]
    error = refused(store(rows=rows, constraints=False))
    text = "\n".join(error.messages)
    assert "row 1, column merged_from" in text
    assert "row 2, column content: is empty" in text
    assert "row 3, column status" in text
    assert "row 4, column project_path: '/home/me/work' is not a project identity" in text


def test_one_bad_row_among_many_imports_nothing(store):
    """Nothing is half-imported: 200 good rows and one bad one import nothing at all."""
    rows = [*rows_for(200), make_row(content="Late.", merged_from="{")]
    refused(store(rows=rows))
    assert Memory.objects.count() == 0


def test_categories_outside_the_pack_are_not_a_refusal(store):
    """A category the pack lacks is flagged, never a reason to refuse or to drop the row."""
    run = context_db_sync(path=store(rows=[make_row(category="WEIRD_STUFF")]))
    assert (run.outcome, run.new, run.flagged) == ("synced", 1, 1)


def test_duplicate_rows_in_a_store_without_constraints(store):
    """Two rows upstream's UNIQUE would have refused are named, and nothing imported."""
    rows = [make_row(content="Same."), make_row(content="same.")]
    error = refused(store(rows=rows, constraints=False))
    assert error.messages == [
        "memories row 2, column normalized_hash: has the same category and normalized_hash as row 1"
    ]


def test_upstream_text_equal_to_a_local_memory_it_cannot_take_over(store, make_project, settings):
    """A synced row edited upstream into the text of another memadmin memory is refused.

    Such a local memory exists only where edits are not written through (pull-only).
    """
    settings.MEMADMIN_STORE_WRITES = "off"
    path = store(rows=rows_for(2))
    context_db_sync(path=path)
    local = memory_create(
        project=Project.objects.get(identity=PROJECT),
        category="PROJECT_RULES",
        content="Written in memadmin.",
        actor="agent",
    )
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute(
        "UPDATE memories SET content = ?, normalized_hash = ? WHERE id = 1",
        (local.content, local.normalized_hash),
    )
    writer.close()
    error = refused(path)
    assert f"is identical to memadmin memory #{local.pk}" in error.messages[0]


def test_unknown_pack_is_refused(store):
    """A pack name with no pack file behind it is refused before anything is written."""
    error = refused(store(), pack="no-such-pack")
    assert "no pack named 'no-such-pack'" in error.messages[0]
