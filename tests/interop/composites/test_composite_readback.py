"""Reading composites back: rows written by others come in; bad rows are reported, none taken."""

import sqlite3

import pytest
from django.core.exceptions import ValidationError

from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create, composite_delete, composite_member_add
from memadmin.core.contextdb import composites_ddl
from memadmin.interop.composites.publish import composites_publish
from memadmin.interop.composites.readback import StoreReader
from memadmin.interop.models import StoreComposite, SyncRun, UpstreamStore
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.interop.composites.test_composite_publish import store_composites
from tests.interop.conftest import rows_for
from tests.upstream_store import insert_rows, make_row

pytestmark = pytest.mark.django_db


def run_sql(path, *statements) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        for sql in statements:
            connection.execute(sql)
    finally:
        connection.close()


def add_composite(path, type_: str, head: int, members: list[int], cid: int | None = None):
    run_sql(
        path,
        "INSERT INTO composites (id, type, head_memory_id, cursor, created_at, updated_at) "
        f"VALUES ({cid or 'NULL'}, '{type_}', {head}, 0, 1700000000000, 1700000000000)",
    )
    connection = sqlite3.connect(path)
    cid = cid or connection.execute("SELECT max(id) FROM composites").fetchone()[0]
    connection.close()
    for position, member in enumerate(members):
        run_sql(
            path,
            "INSERT INTO composite_members (composite_id, member_memory_id, position) "
            f"VALUES ({cid}, {member}, {position})",
        )
    return cid


def memadmin_composites() -> list[tuple]:
    return [
        (
            c.type,
            c.head.upstream_id,
            [m.member.upstream_id for m in c.members.order_by("position")],
        )
        for c in Composite.objects.order_by("pk")
    ]


def last_warnings() -> list[str]:
    return [w["problem"] for w in SyncRun.objects.latest("started_at", "id").warnings]


@pytest.fixture
def published(store):
    """A synced store of six rows (ids 1..6) with the composite tables published."""
    path = store(rows=rows_for(6), sessions=[])
    context_db_sync(path=path)
    composites_publish(upstream=UpstreamStore.objects.get(), actor="system")
    return path


def test_rows_written_by_another_process_come_in_as_import_versions(published):
    """A composite another process inserted appears in memadmin after the next sync."""
    add_composite(published, "sequence", 1, [3, 2])
    context_db_sync(path=published)
    assert memadmin_composites() == [("sequence", 1, [3, 2])]
    composite = Composite.objects.get()
    assert composite.history.first().history_actor == "import"
    assert StoreComposite.objects.get().upstream_id == 1
    context_db_sync(path=published)
    assert Composite.objects.count() == 1


def test_a_change_in_the_store_is_pulled_and_a_deletion_followed(published):
    """A store edit to a published composite comes in; a store deletion deletes it here."""
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    run_sql(
        published,
        "UPDATE composites SET type = 'cause'",
        "INSERT INTO composite_members VALUES (1, 4, 1)",
    )
    context_db_sync(path=published)
    assert memadmin_composites() == [("cause", 1, [2, 4])]
    composite_member_add(composite=composite, members=[memories[5]], actor="agent")
    assert store_composites(published) == [("cause", 1, 0, [2, 4, 5])]
    run_sql(published, "DELETE FROM composite_members", "DELETE FROM composites")
    context_db_sync(path=published)
    assert not Composite.objects.exists()


def test_a_composite_changed_on_both_sides_is_reported_and_kept(published):
    """A conflict overwrites neither side."""
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    run_sql(published, "UPDATE composites SET type = 'cause'")
    # memadmin's side changes without the store (publishing off for a moment).
    Composite.objects.filter(pk=composite.pk).update(type="alternatives")
    context_db_sync(path=published)
    assert memadmin_composites() == [("alternatives", 1, [2])]
    assert store_composites(published) == [("cause", 1, 0, [2])]
    assert any("changed in the store and in memadmin" in w for w in last_warnings())


def test_a_change_made_here_while_the_store_is_read_is_kept(published, monkeypatch):
    """A composite changed here after the sync compared it, before it wrote: kept, reported.

    The sync compares each store composite with memadmin's outside its transaction; a change
    made here in between was written over by the store's (a person's edit lost). It is now
    compared again under the composite's row lock, in the transaction that writes.
    """
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    composite.refresh_from_db()
    run_sql(published, "UPDATE composites SET type = 'cause'")
    compared = StoreReader.refuse_cycles

    def then_changed_here(self, states, kept):
        compared(self, states, kept)
        # memadmin's side changes without the store (publishing off for a moment).
        Composite.objects.filter(pk=composite.pk).update(type="alternatives", title="Kept")

    monkeypatch.setattr(StoreReader, "refuse_cycles", then_changed_here)
    context_db_sync(path=published)
    assert memadmin_composites() == [("alternatives", 1, [2])]
    assert Composite.objects.get().title == "Kept"
    assert store_composites(published) == [("cause", 1, 0, [2])]
    assert any("changed in the store and in memadmin" in w for w in last_warnings())


def test_a_title_given_here_while_the_store_is_read_stays_beside_the_stores_change(
    published, monkeypatch
):
    """The store's change comes in and a title given here meanwhile (the store has none) stays.

    The sync wrote the composite it had read before its transaction, the old title with it.
    """
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    run_sql(published, "UPDATE composites SET type = 'cause'")
    compared = StoreReader.refuse_cycles

    def then_titled_here(self, states, kept):
        compared(self, states, kept)
        Composite.objects.filter(pk=composite.pk).update(title="Given meanwhile")

    monkeypatch.setattr(StoreReader, "refuse_cycles", then_titled_here)
    context_db_sync(path=published)
    assert memadmin_composites() == [("cause", 1, [2])]
    assert Composite.objects.get().title == "Given meanwhile"


@pytest.mark.parametrize(
    "setup, problem",
    [
        (["INSERT INTO composite_members VALUES (1, 5, 1)"], "position 1 is taken twice"),
        (["UPDATE memories SET status = 'archived' WHERE id = 3"], "memory 3 is archived"),
        (["DELETE FROM memories WHERE id = 3"], "memory 3 is not in the store"),
        (
            [
                "INSERT INTO composites VALUES (2, 'theme', 3, 0, 1, 1)",
                "INSERT INTO composite_members VALUES (2, 1, 0)",
            ],
            "a cycle of headers",
        ),
    ],
)
def test_bad_rows_are_reported_and_nothing_is_imported(published, setup, problem):
    """Each bad row is reported with the row, and no composite of the store comes in."""
    add_composite(published, "sequence", 1, [2, 3, 4])
    run_sql(published, "PRAGMA foreign_keys = OFF", *setup)
    add_composite(published, "theme", 6, [5])
    context_db_sync(path=published)
    assert not Composite.objects.exists()
    assert any(problem in w for w in last_warnings()), last_warnings()


def test_an_unknown_type_in_a_table_another_tree_made_is_reported(store):
    """A same-shaped table without the type check may hold any type: it is reported."""
    path = store(rows=rows_for(3), sessions=[])
    statements = composites_ddl.ddl(["sequence", "theme", "cause", "alternatives"])
    statements[0] = statements[0].replace(
        " CHECK (type IN ('sequence', 'theme', 'cause', 'alternatives'))", ""
    )
    run_sql(path, *statements)
    context_db_sync(path=path)
    add_composite(path, "graph", 1, [2])
    context_db_sync(path=path)
    assert not Composite.objects.exists()
    assert any("unknown type 'graph'" in w for w in last_warnings())


def test_a_plugin_merge_repoints_memadmins_members_and_the_store(published):
    """Sources the plugin archived into a result: memadmin's members follow, and the store's."""
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite = composite_create(
        head=memories[1], type="sequence", members=[memories[2], memories[3]], actor="agent"
    )
    connection = sqlite3.connect(published, isolation_level=None)
    insert_rows(connection, "memories", [make_row(content="Steps two and three, merged.")])
    connection.execute(
        "UPDATE memories SET status = 'archived', superseded_by_memory_id = 7 WHERE id IN (2, 3)"
    )
    connection.close()
    context_db_sync(path=published)
    assert memadmin_composites() == [("sequence", 1, [7])]
    assert store_composites(published) == [("sequence", 1, 0, [7])]
    assert composite.history.first().history_actor == "import"
    assert any("repointed" in w for w in last_warnings())


def test_tables_dropped_by_someone_else_delete_nothing_here(published):
    """A store that lost its tables is not read as every composite deleted."""
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite_create(head=memories[1], type="theme", members=[memories[2]], actor="agent")
    run_sql(published, "DROP TABLE composite_members", "DROP TABLE composites")
    context_db_sync(path=published)
    assert memadmin_composites() == [("theme", 1, [2])]


def test_edits_kept_pending_are_pushed_by_the_next_sync(published, settings):
    """On a server without the file edits are kept; deleting is refused; a sync pushes them."""
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    settings.MEMADMIN_STORE_WRITES = "pending"
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    assert store_composites(published) == []
    settings.MEMADMIN_STORE_WRITES = "through"
    context_db_sync(path=published)
    assert store_composites(published) == [("theme", 1, 0, [2, 3])]
    settings.MEMADMIN_STORE_WRITES = "pending"
    with pytest.raises(ValidationError, match="delete the composite where the store is"):
        composite_delete(composite=composite, actor="agent")
    composite_member_add(composite=composite, members=[memories[4]], actor="agent")
    context_db_sync(path=published)
    assert store_composites(published) == [("theme", 1, 0, [2, 3, 4])]
    assert any("1 composite(s) pushed" in w for w in last_warnings())


def test_a_pull_only_sync_pushes_nothing(published, settings):
    """`--pull-only` leaves memadmin's kept composite edits out of the store."""
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    settings.MEMADMIN_STORE_WRITES = "pending"
    composite_create(head=memories[1], type="theme", members=[memories[2]], actor="agent")
    settings.MEMADMIN_STORE_WRITES = "through"
    context_db_sync(path=published, pull_only=True)
    assert store_composites(published) == []


def test_a_cycle_through_a_composite_memadmin_has_is_reported(published):
    """A row heading memadmin's own head round a cycle is refused, nothing imported."""
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite_create(head=memories[1], type="theme", members=[memories[2]], actor="agent")
    add_composite(published, "theme", 2, [1])
    context_db_sync(path=published)
    assert memadmin_composites() == [("theme", 1, [2])]
    assert any("a cycle of headers" in w for w in last_warnings())
