"""A full sync plans by ranges of ids: the same plan as of the whole store, in bounded memory."""

import sqlite3
import tracemalloc

import pytest

from memadmin.core.contextdb import read_store
from memadmin.core.contextdb.ranges import StoreRanges
from memadmin.core.hashing import normalized_hash
from memadmin.interop.models import UpstreamStore
from memadmin.interop.planning.plan import plan_sync
from memadmin.interop.planning.ranges import plan_by_ranges
from memadmin.interop.planning.scope import Scope, plan_bases
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.interop.conftest import rows_for

pytestmark = pytest.mark.django_db(transaction=True)


def _silent(*_):
    """Report no progress."""


def _plans(path, size: int):
    """Return the plan of the whole store read at once, and the plan by ranges of ``size``."""
    store = UpstreamStore.objects.first()
    read = read_store(path)
    scope = Scope.of(store, read.memories, "")
    upstream_of_pk = scope.upstream_of_pk()
    bases = plan_bases(scope.projects.values())
    whole = plan_sync(
        memories=read.memories,
        store_ids=frozenset(m.id for m in read.memories),
        existing=scope.existing_rows(),
        upstream_of_pk=upstream_of_pk,
        categories=scope.categories(None),
        now=0,
        bases=bases,
    )
    with StoreRanges(path) as ranges:
        ranged, problems = plan_by_ranges(
            ranges,
            scope,
            project="",
            upstream_of_pk=upstream_of_pk,
            categories=scope.categories(None),
            pull_only=False,
            report=_silent,
            size=size,
        )
    assert problems == [p for p in read.problems if p.table == "memories"]
    return whole, ranged


def _same(whole, ranged) -> None:
    assert list(ranged.creates) == whole.creates
    ranged.creates.close()
    for name in ("updates", "gone", "unchanged", "flagged", "problems", "warnings", "bases"):
        assert getattr(ranged, name) == getattr(whole, name), name
    assert (ranged.pushes, ranged.conflicts) == (whole.pushes, whole.conflicts)
    # The bases the sync replaces: known only for the rows it gives a new base or pushes.
    assert ranged.known_bases == whole.known_bases
    assert {k: c.as_dict() for k, c in ranged.counts.items()} == {
        k: c.as_dict() for k, c in whole.counts.items()
    }


def test_a_plan_by_small_ranges_is_the_plan_of_the_whole_store(store):
    """Ranges of 7 ids over 30 rows: a conflict, a key clash and references across ranges."""
    path = store(rows=rows_for(30), constraints=False)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("UPDATE memories SET superseded_by_memory_id = 29 WHERE id = 3")
    whole, ranged = _plans(path, size=7)  # the first sync: every row new
    assert len(whole.creates) == 30
    _same(whole, ranged)
    context_db_sync(path=path)

    Memory.objects.filter(upstream_id=25).update(
        content="Mine.", normalized_hash=normalized_hash("Mine.")
    )
    writer.execute(  # the store changed row 25 too, otherwise: a conflict
        "UPDATE memories SET content = 'Theirs.', normalized_hash = ? WHERE id = 25",
        (normalized_hash("Theirs."),),
    )
    writer.execute("UPDATE memories SET importance = 3 WHERE id IN (1, 12, 26)")
    writer.execute("DELETE FROM memories WHERE id = 10")  # gone
    whole, ranged = _plans(path, size=7)
    assert [d.upstream_id for d in whole.conflicts] == [25]
    assert [u.upstream_id for u in whole.updates] == [1, 12, 26]
    assert [row.upstream_id for row in whole.gone] == [10]
    touched = Memory.objects.filter(upstream_id__in=[1, 12, 25, 26])
    assert set(whole.known_bases) == set(touched.values_list("pk", flat=True))
    assert not whole.problems
    _same(whole, ranged)

    # Row 27 takes row 2's text: a clash between two ranges, refused by both plans.
    content, digest = writer.execute(
        "SELECT content, normalized_hash FROM memories WHERE id = 2"
    ).fetchone()
    writer.execute(
        "UPDATE memories SET content = ?, normalized_hash = ? WHERE id = 27", (content, digest)
    )
    writer.close()
    whole, ranged = _plans(path, size=7)
    assert [(p.row_id, p.column) for p in whole.problems] == [(27, "normalized_hash")]
    assert "as row 2" in whole.problems[0].problem
    _same(whole, ranged)


def test_the_new_rows_written_are_the_ones_planned(store):
    """The new rows are staged as planned, from the plan's snapshot: a later store change
    does not slip into a plan that never saw it (the next sync brings it in)."""
    path = store(rows=rows_for(12))
    whole, ranged = _plans(path, size=5)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("UPDATE memories SET importance = 1 WHERE id = 8")
    writer.close()
    assert list(ranged.created_ids()) == whole.created_ids()
    assert ranged.creates[5:10] == whole.creates[5:10]
    assert ranged.creates[5:10][2][1][4] == 50  # importance as planned, not 1
    ranged.creates.close()


def test_a_full_sync_holds_a_range_of_rows_not_the_store(store):
    """Planning 3,000 rows by ranges of 300 keeps well under a row's size per row.

    A plan holding every row (the store's record and its values, about 3 KB a row as the
    sync benchmark measures) would peak at several megabytes here.
    """
    path = store(rows=rows_for(3000), sessions=[])
    context_db_sync(path=path)  # memadmin's rows too: a sync of a store already synced
    Memory.objects.filter(upstream_id=1500).update(importance=2)
    tracemalloc.start()
    try:
        store_row = UpstreamStore.objects.get()
        with StoreRanges(path) as ranges:
            scope = Scope.of_identities(store_row, ranges.projects(), "")
            upstream_of_pk = scope.upstream_of_pk()
            tracemalloc.reset_peak()
            start = tracemalloc.get_traced_memory()[0]
            plan, _ = plan_by_ranges(
                ranges,
                scope,
                project="",
                upstream_of_pk=upstream_of_pk,
                categories=scope.categories(None),
                pull_only=False,
                report=_silent,
                size=300,
            )
            peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert plan.unchanged == 2999 and len(plan.pushes) == 1
    assert peak / 3000 < 800, f"{peak / 3000:.0f} bytes a row"
