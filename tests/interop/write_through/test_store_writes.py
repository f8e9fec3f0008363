"""Write-through: a person's write to a synced project's memory reaches the store in the same step."""

import json
import sqlite3

import pytest

from memadmin.audit.models import AuditEvent
from memadmin.curation.bulk_services import bulk_apply
from memadmin.curation.merge_services import memory_merge, memory_merge_undo
from memadmin.history.revert_services import memory_revert
from memadmin.interop.models import StoreBase
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.models import Project
from memadmin.projects.store import StoreDuplicate
from tests.interop.conftest import OTHER_PROJECT, PROJECT
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


def store_row(path, row_id: int) -> dict | None:
    """Return the store's row ``row_id`` as a dict, read straight from the file."""
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        row = connection.execute("SELECT * FROM memories WHERE id = ?", (row_id,)).fetchone()
        return None if row is None else dict(row)
    finally:
        connection.close()


def store_query(path, sql: str, params=()) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def store_exec(path, sql: str, params=()) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(sql, params)
    finally:
        connection.close()


def log_rows(path) -> list[tuple]:
    return store_query(
        path,
        "SELECT mutation_type, target_memory_id, superseded_by_id, category, new_content "
        "FROM memory_mutation_log ORDER BY id",
    )


def epochs(path) -> dict[str, int]:
    return dict(store_query(path, "SELECT project_path, project_memory_epoch FROM project_state"))


@pytest.fixture
def synced_store(store):
    """A store of three rows of one project (ids 1..3, one with an embedding), synced."""
    path = store(
        rows=[
            make_row(content="Use scripts/release.sh VERSION for releases.", classified_at=5),
            make_row(content="Deploys need the VPN.", category="CONSTRAINTS", shareable=1),
            make_row(content="Tabs are for tables only.", category="NAMING", seen_count=3),
        ],
        sessions=[],
    )
    store_exec(
        path,
        "INSERT INTO memory_embeddings (memory_id, embedding, model_id) VALUES (1, x'00', 'm')",
    )
    context_db_sync(path=path)
    return path


def synced(upstream_id: int) -> Memory:
    return Memory.objects.get(project__identity=PROJECT, upstream_id=upstream_id)


def test_text_edit_reaches_the_store_as_upstream_writes_it(synced_store, people):
    """An edit sets the text, hash and time, resets shareable and classified_at, drops the
    row's embeddings and logs `update` with the new text; the next sync changes nothing."""
    memory = synced(1)
    edited = memory_update(
        memory=memory, actor=people["editor"], content="Release with scripts/release.sh V."
    )
    row = store_row(synced_store, 1)
    assert row["content"] == "Release with scripts/release.sh V."
    assert row["normalized_hash"] == edited.normalized_hash
    assert row["updated_at"] == edited.updated_at
    assert (row["shareable"], row["classified_at"]) == (0, None)
    assert store_query(synced_store, "SELECT count(*) FROM memory_embeddings") == [(0,)]
    assert log_rows(synced_store) == [
        ("update", 1, None, "PROJECT_RULES", "Release with scripts/release.sh V.")
    ]
    assert StoreBase.objects.get(memory=memory).pending_since is None
    run = context_db_sync(path=synced_store)
    assert (run.changed, run.new, run.unchanged) == (0, 0, 3)
    assert synced(1).content == "Release with scripts/release.sh V."


def test_create_writes_a_user_row_and_keeps_its_id(synced_store, people):
    """A memory created in a synced project is a `source_type='user'` row of the store."""
    memory = memory_create(
        project=Project.objects.get(identity=PROJECT),
        category="ARCHITECTURE",
        content="The ledger is pure Python.",
        actor=people["editor"],
    )
    row = store_row(synced_store, memory.upstream_id)
    assert (row["content"], row["source_type"], row["project_path"]) == (
        "The ledger is pure Python.",
        "user",
        PROJECT,
    )
    assert epochs(synced_store) == {PROJECT: 1}
    run = context_db_sync(path=synced_store)
    assert (run.new, run.changed) == (0, 0)
    assert Memory.objects.filter(content="The ledger is pure Python.").count() == 1


def test_archive_and_restore(synced_store, people):
    """An archive logs `archive` with the reason in metadata_json; a restore bumps the epoch
    of the project and of every other member of its workspace."""
    store_exec(synced_store, "INSERT INTO workspaces (id, name, created_at) VALUES (1, 'team', 0)")
    for project in (PROJECT, OTHER_PROJECT):
        store_exec(
            synced_store,
            "INSERT INTO workspace_members (workspace_id, project_path, added_at) VALUES (1, ?, 0)",
            (project,),
        )
    memory = memory_archive(memory=synced(2), actor=people["editor"], reason="VPN retired")
    row = store_row(synced_store, 2)
    assert row["status"] == "archived"
    assert json.loads(row["metadata_json"]) == {"archive_reason": "VPN retired"}
    assert log_rows(synced_store) == [("archive", 2, None, "CONSTRAINTS", None)]
    assert epochs(synced_store) == {}
    memory_update(memory=memory, actor=people["editor"], status="permanent")
    row = store_row(synced_store, 2)
    assert (row["status"], row["metadata_json"]) == ("permanent", None)
    assert epochs(synced_store) == {PROJECT: 1, OTHER_PROJECT: 1}


def test_category_move_and_duplicate_refusal(synced_store, people):
    """A category move bumps the epoch; a move onto a text the store has in that category is
    refused with the memory that has it, and nothing is written on either side."""
    memory_update(memory=synced(3), actor=people["editor"], category="PROJECT_RULES")
    assert store_row(synced_store, 3)["category"] == "PROJECT_RULES"
    assert epochs(synced_store) == {PROJECT: 1}
    store_exec(
        synced_store,
        "INSERT INTO memories (project_path, category, content, normalized_hash, first_seen_at,"
        " created_at, updated_at, last_seen_at) SELECT project_path, 'NAMING', content,"
        " normalized_hash, 1, 1, 1, 1 FROM memories WHERE id = 2",
    )
    before = store_row(synced_store, 2)
    with pytest.raises(StoreDuplicate) as refused:
        memory_update(memory=synced(2), actor=people["editor"], category="NAMING")
    assert refused.value.upstream_id == 4
    assert "as ID 4" in refused.value.messages[0]
    assert store_row(synced_store, 2) == before
    assert synced(2).category == "CONSTRAINTS"


def test_merge_follows_ctx_memory_merge(synced_store, people):
    """The merged row has the sorted union in merged_from, summed counts, is permanent if a
    source was; the sources are archived, superseded by it, each logged `superseded`."""
    memory_update(memory=synced(3), actor=people["editor"], category="CONSTRAINTS")
    memory_update(memory=synced(3), actor=people["editor"], status="permanent")
    result = memory_merge(
        memories=[synced(3), synced(2)],
        content="VPN for deploys; tabs only in tables.",
        actor=people["curator"],
    )
    row = store_row(synced_store, result.upstream_id)
    assert json.loads(row["merged_from"]) == [2, 3]
    assert (row["seen_count"], row["status"], row["source_type"]) == (4, "permanent", "user")
    for source in (2, 3):
        source_row = store_row(synced_store, source)
        assert (source_row["status"], source_row["superseded_by_memory_id"]) == (
            "archived",
            result.upstream_id,
        )
    assert [entry[:3] for entry in log_rows(synced_store)[-2:]] == [
        ("superseded", 2, result.upstream_id),
        ("superseded", 3, result.upstream_id),
    ]
    assert context_db_sync(path=synced_store).changed == 0
    memory_merge_undo(result=Memory.objects.get(pk=result.pk), actor=people["curator"])
    assert store_row(synced_store, result.upstream_id) is None
    assert store_row(synced_store, 2)["status"] == "active"
    assert store_row(synced_store, 2)["superseded_by_memory_id"] is None
    assert log_rows(synced_store)[-1][:2] == ("delete", result.upstream_id)


def test_bulk_archive_and_revert(synced_store, people):
    """A bulk archive and a revert each reach the store."""
    ids = [synced(1).pk, synced(2).pk]
    bulk_apply(action="archive", memory_ids=ids, expected=2, actor=people["editor"])
    assert [store_row(synced_store, n)["status"] for n in (1, 2)] == ["archived", "archived"]
    memory = memory_update(memory=synced(3), actor=people["editor"], content="Tabs: tables only.")
    first = memory.history.order_by("history_date", "history_id").first()
    memory_revert(memory=memory, version=first, actor=people["curator"])
    assert store_row(synced_store, 3)["content"] == "Tabs are for tables only."
    assert AuditEvent.objects.filter(action="reverted").count() == 1


def test_a_project_not_synced_writes_nothing_anywhere(project, people, store):
    """A project of memadmin's own store is never written to any file."""
    path = store()
    memory = memory_create(project=project, category="OPS_RULES", content="x", actor="system")
    assert memory.upstream_id is None
    assert not StoreBase.objects.exists()
    assert store_row(path, 1)["content"].startswith("Fact 1")


def test_pull_only_writes_nothing(synced_store, people, settings):
    """With MEMADMIN_STORE_WRITES=off an edit stays in memadmin; the store is untouched."""
    settings.MEMADMIN_STORE_WRITES = "off"
    memory_update(memory=synced(1), actor=people["editor"], content="Local only.")
    assert store_row(synced_store, 1)["content"].startswith("Use scripts")
    assert log_rows(synced_store) == []


def test_an_exact_duplicate_written_again_bumps_the_store_row(synced_store, people):
    """Writing a text the category has bumps seen_count and last_seen_at in the store too."""
    from memadmin.memories.services import memory_write_or_bump

    memory, created = memory_write_or_bump(
        project=Project.objects.get(identity=PROJECT),
        category="PROJECT_RULES",
        content="use scripts/release.sh   VERSION for releases.",
        actor=people["editor"],
    )
    assert not created
    row = store_row(synced_store, 1)
    assert (row["seen_count"], row["last_seen_at"]) == (2, memory.last_seen_at)
    assert row["content"] == "Use scripts/release.sh VERSION for releases."
    assert context_db_sync(path=synced_store).changed == 0
