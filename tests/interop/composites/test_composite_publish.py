"""Publishing composites to a store: the two tables, and every composite write reaching them."""

import sqlite3
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from memadmin.composites.services import (
    composite_create,
    composite_cursor_advance,
    composite_delete,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
    composite_set_title,
    composite_set_type,
)
from memadmin.curation.merge_services import memory_merge, memory_merge_undo
from memadmin.interop.composites.publish import (
    PublishRefused,
    composites_publish,
    composites_unpublish,
)
from memadmin.interop.models import StoreComposite, StoreComposites, UpstreamStore
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.interop.conftest import rows_for, sha256

pytestmark = pytest.mark.django_db


def query(path, sql: str, params=()) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def tables(path) -> set[str]:
    return {name for (name,) in query(path, "SELECT name FROM sqlite_schema WHERE type='table'")}


def store_composites(path) -> list[tuple]:
    """Return each store composite as (type, head, cursor, [members in order])."""
    out = []
    for cid, type_, head, cursor in query(
        path, "SELECT id, type, head_memory_id, cursor FROM composites ORDER BY id"
    ):
        members = [
            m
            for (m,) in query(
                path,
                "SELECT member_memory_id FROM composite_members WHERE composite_id = ? "
                "ORDER BY position",
                (cid,),
            )
        ]
        out.append((type_, head, cursor, members))
    return out


@pytest.fixture
def synced(store):
    """A store of five rows of one project (ids 1..5), synced; return (path, store, memories)."""
    path = store(rows=rows_for(5), sessions=[])
    context_db_sync(path=path)
    upstream = UpstreamStore.objects.get()
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    return path, upstream, memories


def test_publishing_creates_exactly_the_two_tables(synced):
    """Publishing adds the two tables (with their indexes and head triggers) and nothing else."""
    path, upstream, _ = synced
    before = tables(path)
    created, conflicts = composites_publish(upstream=upstream, actor="system")
    assert (created, conflicts) == (["composites", "composite_members"], [])
    assert tables(path) - before == {"composites", "composite_members"}
    indexes = {
        name
        for (name,) in query(path, "SELECT name FROM sqlite_schema WHERE type = 'index'")
        if name.startswith("idx_composite")
    }
    assert indexes == {"idx_composites_head", "idx_composite_members_member"}
    keys = query(path, "PRAGMA foreign_key_list(composite_members)")
    assert {(row[2], row[3], row[6]) for row in keys} == {
        ("composites", "composite_id", "CASCADE"),
        ("memories", "member_memory_id", "CASCADE"),
    }
    assert composites_publish(upstream=upstream, actor="system") == ([], [])


def test_the_store_refuses_a_member_equal_to_its_head(synced):
    """The store's trigger refuses a member row naming the composite's head."""
    path, upstream, _ = synced
    composites_publish(upstream=upstream, actor="system")
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(
            "INSERT INTO composites (type, head_memory_id, cursor, created_at, updated_at) "
            "VALUES ('theme', 1, 0, 1, 1)"
        )
        with pytest.raises(sqlite3.IntegrityError, match="never its own member"):
            connection.execute(
                "INSERT INTO composite_members (composite_id, member_memory_id, position) "
                "VALUES (1, 1, 0)"
            )
        with pytest.raises(sqlite3.IntegrityError):
            connection.execute(
                "INSERT INTO composites (type, head_memory_id, cursor, created_at, updated_at) "
                "VALUES ('graph', 1, 0, 1, 1)"
            )
    finally:
        connection.close()


def test_a_foreign_composites_table_is_refused_unchanged(store):
    """A store whose `composites` table has another shape is refused, the file left unchanged."""
    path = store(rows=rows_for(3), sessions=[])
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("CREATE TABLE composites (id INTEGER PRIMARY KEY, name TEXT, kind TEXT)")
    connection.close()
    context_db_sync(path=path)
    upstream = UpstreamStore.objects.get()
    digest = sha256(path)
    with pytest.raises(PublishRefused) as refused:
        composites_publish(upstream=upstream, actor="system")
    message = refused.value.messages[0]
    assert "no column type" in message and "an extra column name" in message
    assert "Nothing was created" in message
    assert sha256(path) == digest
    assert "composite_members" not in tables(path)
    assert not StoreComposites.objects.filter(published=True).exists()


def test_every_composite_write_reaches_the_published_store(synced):
    """Create, add, move, remove, type and cursor are written through; titles stay in memadmin."""
    path, upstream, memories = synced
    existing = composite_create(
        head=memories[5], type="theme", members=[memories[4]], actor="agent", title="Old"
    )
    composites_publish(upstream=upstream, actor="system")
    assert store_composites(path) == [("theme", 5, 0, [4])]
    composite = composite_create(
        head=memories[1], type="sequence", members=[memories[2], memories[3]], actor="agent"
    )
    assert store_composites(path)[1] == ("sequence", 1, 0, [2, 3])
    composite_member_add(composite=composite, members=[memories[4]], actor="agent")
    assert store_composites(path)[1] == ("sequence", 1, 0, [2, 3, 4])
    composite_member_move(composite=composite, member=memories[4], position=0, actor="agent")
    # The cursor follows its member (#2, now second).
    assert store_composites(path)[1] == ("sequence", 1, 1, [4, 2, 3])
    composite_cursor_advance(composite=composite, actor="agent")
    assert store_composites(path)[1] == ("sequence", 1, 2, [4, 2, 3])
    composite_member_remove(composite=composite, member=memories[2], actor="agent")
    composite.refresh_from_db()
    assert store_composites(path)[1] == ("sequence", 1, composite.cursor, [4, 3])
    composite_set_type(composite=composite, type="cause", actor="agent")
    assert store_composites(path)[1][0] == "cause"
    digest = sha256(path)
    composite_set_title(composite=composite, title="Release steps", actor="agent")
    assert sha256(path) == digest
    composite_delete(composite=existing, actor="agent")
    assert store_composites(path) == [("cause", 1, composite.cursor, [4, 3])]
    assert StoreComposite.objects.get().composite == composite


def test_a_store_row_changed_by_another_process_refuses_the_edit(synced):
    """An edit over a store composite that moved since memadmin read it writes nothing."""
    path, upstream, memories = synced
    composites_publish(upstream=upstream, actor="system")
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("UPDATE composites SET type = 'alternatives'")
    connection.close()
    with pytest.raises(ValidationError, match="changed since memadmin read it"):
        composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    assert list(composite.members.values_list("member_id", flat=True)) == [memories[2].pk]
    assert store_composites(path) == [("alternatives", 1, 0, [2])]


def test_a_store_whose_composite_tables_were_dropped_refuses_the_edit(synced):
    """Another process dropped the tables after publishing: an edit is refused, saying so, and
    nothing changes on either side (the tables are not made again behind the curator's back)."""
    path, upstream, memories = synced
    composites_publish(upstream=upstream, actor="system")
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("DROP TABLE composite_members")
    connection.execute("DROP TABLE composites")
    connection.close()
    before = sha256(path)
    with pytest.raises(ValidationError, match="no longer has the composite tables; publish again"):
        composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    assert list(composite.members.values_list("member_id", flat=True)) == [memories[2].pk]
    assert sha256(path) == before


def test_unpublishing_stops_the_writes_and_keeps_the_tables(synced):
    """After unpublishing, composite edits stay in memadmin and the tables stay as they were."""
    path, upstream, memories = synced
    composites_publish(upstream=upstream, actor="system")
    composites_unpublish(upstream=upstream, actor="system")
    digest = sha256(path)
    composite_create(head=memories[1], type="theme", members=[memories[2]], actor="agent")
    assert sha256(path) == digest
    assert {"composites", "composite_members"} <= tables(path)


def test_a_merge_repoints_the_store_members(synced):
    """Merging two members repoints the store's member rows to the merge's result."""
    path, upstream, memories = synced
    composites_publish(upstream=upstream, actor="system")
    composite_create(
        head=memories[1], type="sequence", members=[memories[2], memories[3]], actor="agent"
    )
    result = memory_merge(
        memories=[memories[2], memories[3]], content="Steps two and three.", actor="agent"
    )
    result.refresh_from_db()
    assert store_composites(path) == [("sequence", 1, 0, [result.upstream_id])]


def test_a_merge_of_the_head_and_a_member_collapses_alike_on_both_sides(synced):
    """Head and member merged: the member equal to the new head is dropped, the cursor follows."""
    path, upstream, memories = synced
    composites_publish(upstream=upstream, actor="system")
    composite = composite_create(
        head=memories[1],
        type="sequence",
        members=[memories[2], memories[3], memories[4]],
        actor="agent",
    )
    composite_cursor_advance(composite=composite, actor="agent")
    composite_cursor_advance(composite=composite, actor="agent")
    result = memory_merge(memories=[memories[1], memories[3]], content="One.", actor="agent")
    result.refresh_from_db()
    composite.refresh_from_db()
    assert composite.head == result
    assert [m.member_id for m in composite.members.order_by("position")] == [
        memories[2].pk,
        memories[4].pk,
    ]
    assert store_composites(path) == [("sequence", result.upstream_id, composite.cursor, [2, 4])]
    assert composite.cursor == 1


def test_the_sync_command_publishes_with_its_flag(store):
    """`sync_context_db --publish-composites` syncs, then creates the tables; again, none new."""
    path = store(rows=rows_for(2), sessions=[])
    out = StringIO()
    call_command("sync_context_db", str(path), "--no-progress", "--publish-composites", stdout=out)
    assert "tables created: composites, composite_members" in out.getvalue()
    out = StringIO()
    call_command("sync_context_db", str(path), "--no-progress", "--publish-composites", stdout=out)
    assert "tables created: none (they were there)" in out.getvalue()


def test_undoing_a_merge_puts_the_store_members_back(synced):
    """The undo restores the store's composite as it was before the merge."""
    path, upstream, memories = synced
    composites_publish(upstream=upstream, actor="system")
    composite_create(
        head=memories[1], type="sequence", members=[memories[2], memories[3]], actor="agent"
    )
    result = memory_merge(memories=[memories[2], memories[3]], content="Both.", actor="agent")
    memory_merge_undo(result=result, actor="agent")
    assert store_composites(path) == [("sequence", 1, 0, [2, 3])]
