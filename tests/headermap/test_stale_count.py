"""The stale-header count a process keeps: right after every kind of write, patched, not recounted.

After each write the kept count must equal the count made afresh (`count_stale_headers`)
and the number expected, and cost two queries (the markers; the headers the write
touched, with those of them stale now) rather than a walk over every composite.
"""

import sqlite3

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.composites.models import Composite
from memadmin.composites.services import (
    composite_create,
    composite_delete,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
)
from memadmin.headermap import stale_count
from memadmin.headermap.stale_count import kept_stale_heads
from memadmin.headermap.stale_selectors import count_stale_headers, stale_header_count
from memadmin.headermap.stale_services import header_mark_synced
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.models import Project
from tests.upstream_store import build_store, make_row

from .stale_fixtures import T0, make_release

pytestmark = pytest.mark.django_db

PATCHED = 2  # the markers; the touched headers, with those stale now
LATER = T0 + 60_000


def counted(expected: int, queries: int = PATCHED) -> None:
    """Assert the kept count, the fresh count and `expected` agree, in `queries` queries."""
    with CaptureQueriesContext(connection) as captured:
        kept = stale_header_count()
    assert (kept, count_stale_headers()) == (expected, expected)
    assert len(captured) == queries, [query["sql"][:120] for query in captured]


@pytest.fixture
def releases(project, make_project):
    """Two headers in sync over two steps each (two projects), a memory in no composite."""
    other = make_project("ops-six")
    first, second = make_release(project), make_release(other)
    first["sequence"] = Composite.objects.get(head=first["header"])
    second["sequence"] = Composite.objects.get(head=second["header"])
    spare = memory_create(
        project=other, category="OPS_RULES", content="Write the notes.", actor="agent", at_ms=T0
    )
    counted(0, queries=2)  # the markers and the whole count
    return first, second, spare


def test_an_edited_detail_makes_its_header_stale_and_the_count_follows(releases):
    first, second, _ = releases
    memory_update(memory=first["build"], content="Build it.", actor="agent", at_ms=LATER)
    counted(1)
    memory_update(memory=second["tag"], importance=70, actor="agent", at_ms=LATER)
    counted(2)
    assert kept_stale_heads() == {first["header"].pk, second["header"].pk}


def test_a_memory_in_no_composite_edited_changes_nothing(releases):
    first, _, spare = releases
    memory_update(memory=spare, content="Write the notes twice.", actor="agent", at_ms=LATER)
    counted(0)  # it touched no header
    memory_update(memory=first["header"], content="Release it.", actor="agent", at_ms=LATER)
    counted(0)  # a header's own text: checked again, still in sync


def test_an_edited_header_leaves_or_rejoins_the_count(releases):
    first, *_ = releases
    memory_update(memory=first["build"], content="Build it.", actor="agent", at_ms=LATER)
    counted(1)
    memory_update(memory=first["header"], content="Release: all of it.", actor="agent", at_ms=LATER)
    counted(1)  # its own text does not sync it
    memory_update(memory=first["header"], status="archived", actor="agent", at_ms=LATER + 1)
    counted(0)
    memory_update(memory=first["header"], status="active", actor="agent", at_ms=LATER + 2)
    counted(1)


def test_membership_changes_each_show_in_the_next_count(releases):
    first, second, spare = releases
    composite_member_add(composite=second["sequence"], members=[spare], actor="agent", at_ms=LATER)
    counted(1)
    header_mark_synced(header=second["header"], actor="dreamer", at_ms=LATER + 1)
    counted(0)
    composite_member_move(
        composite=second["sequence"], member=spare, position=0, actor="agent", at_ms=LATER + 2
    )
    counted(1)
    composite_member_remove(
        composite=first["sequence"], member=first["tag"], actor="agent", at_ms=LATER + 3
    )
    counted(2)
    header_mark_synced(header=first["header"], actor="dreamer", at_ms=LATER + 4)
    counted(1)


def test_a_composite_made_or_deleted_shows_in_the_next_count(releases):
    first, second, spare = releases
    header_mark_synced(header=second["header"], actor="dreamer", at_ms=LATER)
    counted(0)
    checks = composite_create(
        head=second["header"], type="theme", members=[spare], actor="agent", at_ms=LATER + 1
    )
    counted(1)  # made after the header's sync: its set of details changed
    header_mark_synced(header=second["header"], actor="dreamer", at_ms=LATER + 2)
    counted(0)
    composite_delete(composite=checks, actor="agent", at_ms=LATER + 3)
    counted(1)  # deleted while the header still heads its sequence
    composite_delete(composite=second["sequence"], actor="agent", at_ms=LATER + 4)
    counted(0)  # it heads nothing now: no longer a header
    memory_update(memory=first["tag"], content="Tag it.", actor="agent", at_ms=LATER + 5)
    counted(1)


def test_many_writes_at_once_are_counted_whole(releases, monkeypatch):
    first, second, _ = releases
    monkeypatch.setattr(stale_count, "PATCH_LIMIT", 2)
    memory_update(memory=first["build"], content="Build it.", actor="agent", at_ms=LATER)
    memory_update(memory=second["build"], content="Build it.", actor="agent", at_ms=LATER)
    with CaptureQueriesContext(connection) as captured:
        assert stale_header_count() == count_stale_headers() == 2
    markers, whole = captured[:2]  # the whole count reads no memory versions; a patch does
    assert "historicalmemory" in markers["sql"] and "historicalmemory" not in whole["sql"]


def test_a_sync_that_edits_a_detail_shows_in_the_next_count(tmp_path):
    """The sync's bulk rows carry history versions: the detail it changed is found by them."""
    path = build_store(
        tmp_path / "context.db",
        rows=[make_row(content=text) for text in ("Deploy: build, ship.", "Build.", "Ship.")],
    )
    context_db_sync(path=path)
    project = Project.objects.get()
    header, build, ship = Memory.objects.filter(project=project).order_by("pk")
    made = make_row()["updated_at"] + 1
    composite_create(head=header, type="sequence", members=[build, ship], actor="agent", at_ms=made)
    counted(0, queries=2)
    with sqlite3.connect(path) as store:
        store.execute(
            "UPDATE memories SET content = 'Build twice.', updated_at = ? WHERE content = 'Build.'",
            [made + 1000],
        )
    store.close()
    context_db_sync(path=path)
    assert Memory.objects.get(pk=build.pk).content == "Build twice."
    counted(1)
