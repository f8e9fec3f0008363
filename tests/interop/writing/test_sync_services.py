"""Syncing from real upstream-shaped stores: first sync, re-run, edits, deletions (both engines)."""

import sqlite3

import pytest

from memadmin.audit.models import AuditEvent
from memadmin.interop.models import SyncRun, UpstreamProject, UpstreamSession, UpstreamStore
from memadmin.interop.writing.services import SyncRefused, context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import category_names
from tests.interop.conftest import OTHER_PROJECT, PROJECT, rows_for, sha256, side_file
from tests.upstream_store import BASE_TIME_MS, STORE_UUID, make_row, make_session

pytestmark = pytest.mark.django_db


def synced(upstream_id: int, identity: str = PROJECT) -> Memory:
    return Memory.objects.get(project__identity=identity, upstream_id=upstream_id)


def versions(memory: Memory) -> list:
    return list(memory.history.order_by("history_date", "history_id"))


def write_upstream(path, sql: str, params=()) -> None:
    """Change the store as the agent would: a WAL writer committing one statement."""
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute(sql, params)
    finally:
        writer.close()


@pytest.mark.parametrize("column_set", ["newer", "older"])
def test_first_sync_brings_every_project_in(store, column_set):
    """Every row arrives with its upstream id; unknown projects are created on the magic-context pack."""
    path = store(column_set=column_set)
    run = context_db_sync(path=path)
    assert (run.outcome, run.new, run.changed, run.unchanged, run.gone) == ("synced", 6, 0, 0, 0)
    assert sorted(run.projects_created) == sorted([PROJECT, OTHER_PROJECT])
    project = Project.objects.get(identity=PROJECT)
    assert project.pack.name == "magic-context"
    assert "PROJECT_RULES" in category_names(project)
    memory = synced(5)
    assert (memory.content, memory.category, memory.status) == (
        "Deploys need the VPN.",
        "CONSTRAINTS",
        "active",
    )
    assert memory.created_at == BASE_TIME_MS
    assert memory.display_id == 5
    assert synced(6, OTHER_PROJECT).content == "Tabs are for tables only."
    link = UpstreamProject.objects.get(project=project)
    assert link.store.store_uuid == STORE_UUID
    assert link.store.migrations == (94 if column_set == "newer" else 78)


def test_older_column_set_reads_upstream_defaults(store):
    """Columns an older store lacks take upstream's defaults."""
    context_db_sync(path=store(column_set="older"))
    memory = synced(1)
    assert memory.verified_at is None and memory.classified_at is None
    assert memory.metadata == {}


def test_each_new_memory_has_one_version_by_import(store):
    """A synced memory's first version is written by "import", with a reason."""
    context_db_sync(path=store())
    history = versions(synced(1))
    assert len(history) == 1
    assert history[0].history_type == "+"
    assert (history[0].history_actor, history[0].history_actor_kind) == ("import", "agent")
    assert "context.db" in history[0].history_change_reason


def test_second_sync_changes_nothing(store):
    """Running the sync again writes no memory, no version and no audit event."""
    path = store()
    context_db_sync(path=path)
    before = (
        list(Memory.objects.order_by("pk").values()),
        Memory.history.count(),
        AuditEvent.objects.count(),
    )
    run = context_db_sync(path=path)
    assert (run.new, run.changed, run.unchanged, run.gone) == (0, 0, 6, 0)
    after = (
        list(Memory.objects.order_by("pk").values()),
        Memory.history.count(),
        AuditEvent.objects.count(),
    )
    assert after == before


def test_upstream_edit_arrives_as_a_version_by_import(store):
    """A row edited upstream becomes a new version of the same memory, by "import"."""
    path = store()
    context_db_sync(path=path)
    pk = synced(2).pk
    write_upstream(
        path,
        "UPDATE memories SET content = ?, normalized_hash = ?, updated_at = ? WHERE id = 2",
        ("Fact 2: releases use scripts/ship.sh.", "0" * 32, BASE_TIME_MS + 5),
    )
    run = context_db_sync(path=path)
    assert (run.new, run.changed, run.unchanged) == (0, 1, 5)
    memory = synced(2)
    assert memory.pk == pk
    assert memory.content == "Fact 2: releases use scripts/ship.sh."
    latest = versions(memory)[-1]
    assert latest.history_type == "~"
    assert latest.history_actor == "import"
    assert "content" in latest.history_change_reason
    event = AuditEvent.objects.get(object_type="memory", object_id=str(pk))
    assert event.action == "changed_upstream"
    assert event.actor_label == "import"
    assert event.changes["content"][1] == "Fact 2: releases use scripts/ship.sh."


def test_seen_again_upstream_is_a_quiet_version(store):
    """A bump of counters only is a change too: the new values and one version."""
    path = store()
    context_db_sync(path=path)
    write_upstream(path, "UPDATE memories SET seen_count = 3, last_seen_at = last_seen_at + 9")
    run = context_db_sync(path=path)
    assert run.changed == 6
    assert synced(1).seen_count == 3
    assert len(versions(synced(1))) == 2


def test_deleted_upstream_is_marked_not_deleted(store):
    """A row gone upstream stays, marked with when the sync saw it gone."""
    path = store()
    context_db_sync(path=path)
    write_upstream(path, "DELETE FROM memories WHERE id = 3")
    run = context_db_sync(path=path)
    assert (run.gone, run.unchanged) == (1, 5)
    memory = synced(3)
    assert memory.upstream_gone_at == run.started_at
    assert versions(memory)[-1].history_actor == "import"
    assert AuditEvent.objects.filter(action="gone_upstream", object_id=str(memory.pk)).exists()
    again = context_db_sync(path=path)
    assert (again.gone, again.changed) == (0, 0)
    assert synced(3).upstream_gone_at == run.started_at


def test_a_row_back_upstream_is_unmarked(store, tmp_path):
    """A row that comes back (a restored backup) is no longer marked gone."""
    path = store()
    backup = tmp_path / "backup.db"
    source = sqlite3.connect(path)
    target = sqlite3.connect(backup)
    source.backup(target)
    target.close()
    source.close()
    context_db_sync(path=path)
    write_upstream(path, "DELETE FROM memories WHERE id = 3")
    context_db_sync(path=path)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("ATTACH DATABASE ? AS old", (str(backup),))
    writer.execute("INSERT INTO memories SELECT * FROM old.memories WHERE id = 3")
    writer.close()
    run = context_db_sync(path=path)
    assert run.changed == 1
    assert synced(3).upstream_gone_at is None


def test_unknown_categories_are_imported_and_flagged(store):
    """A category the pack lacks is kept on the memory and counted as flagged."""
    rows = [make_row(content="A", category="ODD_ONE"), make_row(content="B")]
    run = context_db_sync(path=store(rows=rows))
    assert run.new == 2
    assert run.flagged == 1
    assert run.flagged_categories == {PROJECT: {"ODD_ONE": 1}}
    assert synced(1).category == "ODD_ONE"


def test_references_map_to_our_rows(store):
    """superseded_by and merged_from name upstream ids, and point at our rows after a sync."""
    rows = [
        make_row(content="Old rule.", status="archived", superseded_by_memory_id=3),
        make_row(content="Other old rule.", status="archived", superseded_by_memory_id=3),
        make_row(content="Merged rule.", merged_from="[1, 2]"),
    ]
    context_db_sync(path=store(rows=rows))
    merged = synced(3)
    assert synced(1).superseded_by == merged
    assert merged.merged_from == [synced(1).pk, synced(2).pk]
    assert len(versions(merged)) == 1


def test_references_to_rows_not_in_the_store_are_warned_about(store):
    """A successor missing upstream is left empty and reported as a warning."""
    rows = [make_row(content="Old.", superseded_by_memory_id=99, merged_from="[98]")]
    run = context_db_sync(path=store(rows=rows))
    assert synced(1).superseded_by is None
    assert synced(1).merged_from == []
    columns = sorted(warning["column"] for warning in run.warnings)
    assert columns == ["merged_from", "superseded_by_memory_id"]


def test_rows_trading_contents_upstream(store):
    """Two rows that swap their texts upstream sync without tripping the unique constraint."""
    path = store(rows=rows_for(2))
    context_db_sync(path=path)
    first, second = synced(1), synced(2)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN")
    writer.execute("UPDATE memories SET normalized_hash = 'swap' WHERE id = 1")
    writer.execute(
        "UPDATE memories SET content = ?, normalized_hash = ? WHERE id = 2",
        (first.content, first.normalized_hash),
    )
    writer.execute(
        "UPDATE memories SET content = ?, normalized_hash = ? WHERE id = 1",
        (second.content, second.normalized_hash),
    )
    writer.execute("COMMIT")
    writer.close()
    run = context_db_sync(path=path)
    assert run.changed == 2
    assert synced(1).content == second.content
    assert synced(2).content == first.content


def test_sessions_are_read_with_their_prompt_hash(store):
    """Each session's system_prompt_hash is kept, and a vanished session is dropped."""
    path = store()
    run = context_db_sync(path=path)
    assert run.sessions == 2
    session = UpstreamSession.objects.get(session_id="ses_old")
    assert session.system_prompt_hash == "0ld"
    assert session.project.identity == PROJECT
    assert session.memory_block_ids == [1, 2]
    write_upstream(path, "DELETE FROM session_meta WHERE session_id = 'ses_old'")
    context_db_sync(path=path)
    assert list(UpstreamSession.objects.values_list("session_id", flat=True)) == [
        "ses_01JX4N7Q8R2M"
    ]


def test_project_filter_syncs_one_project(store):
    """--project brings only that project's rows and sessions in."""
    run = context_db_sync(path=store(), project=OTHER_PROJECT)
    assert run.new == 1
    assert list(Project.objects.values_list("identity", flat=True)) == [OTHER_PROJECT]


def test_project_filter_naming_no_project_is_refused(store):
    """A project the store does not hold, and memadmin never synced, is refused by name."""
    with pytest.raises(SyncRefused, match="holds no memory of project git:"):
        context_db_sync(path=store(), project="git:" + "f" * 40)


def test_other_pack_or_none_for_new_projects(store):
    """The pack installed in new projects is a choice; None installs nothing."""
    context_db_sync(path=store(), pack="ops-six", project=PROJECT)
    assert Project.objects.get(identity=PROJECT).pack.name == "ops-six"
    run = context_db_sync(path=store(name="second.db"), pack=None, project=OTHER_PROJECT)
    assert Project.objects.get(identity=OTHER_PROJECT).pack is None
    assert run.flagged == 1


def test_a_local_memory_with_the_same_text_is_adopted(store, make_project):
    """A memory written in memadmin that upstream also holds becomes the synced one."""
    project = make_project("magic-context", identity=PROJECT)
    local = memory_create(
        project=project,
        category="CONSTRAINTS",
        content="Deploys need the VPN.",
        actor="agent",
    )
    run = context_db_sync(path=store())
    assert (run.new, run.changed) == (5, 1)
    local.refresh_from_db()
    assert local.upstream_id == 5
    assert AuditEvent.objects.filter(action="matched_upstream", object_id=str(local.pk)).exists()


def test_a_deleted_and_rewritten_row_takes_over_its_gone_memory(store):
    """Upstream deleting a row and writing it again under a new id keeps one memory."""
    path = store()
    context_db_sync(path=path)
    pk = synced(5).pk
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN")
    row = writer.execute("SELECT * FROM memories WHERE id = 5").fetchone()
    writer.execute("DELETE FROM memories WHERE id = 5")
    writer.execute(f"INSERT INTO memories VALUES (7, {', '.join('?' * (len(row) - 1))})", row[1:])
    writer.execute("COMMIT")
    writer.close()
    run = context_db_sync(path=path)
    assert (run.new, run.changed, run.gone) == (0, 1, 0)
    assert Memory.objects.get(pk=pk).upstream_id == 7


def test_a_project_of_another_store_is_refused(store):
    """Upstream ids of two stores never mix: a project bound to one store refuses another."""
    context_db_sync(path=store(), project=PROJECT)
    other = store(name="other.db")
    write_upstream(
        other, "UPDATE context_store_meta SET value = 'another' WHERE key = 'store_uuid'"
    )
    with pytest.raises(SyncRefused, match="synced from another store"):
        context_db_sync(path=other)
    assert UpstreamStore.objects.count() == 1


def test_the_store_is_never_written_beside_a_live_writer(store):
    """The store's database file and WAL keep their bytes while the agent holds them open."""
    path = store(rows=rows_for(40))
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("UPDATE memories SET seen_count = seen_count + 1 WHERE id <= 10")
    writer.execute("BEGIN")
    writer.execute("UPDATE memories SET seen_count = 99 WHERE id = 40")
    wal = side_file(path, "-wal")
    before = (sha256(path), sha256(wal))
    assert wal.stat().st_size > 0
    try:
        run = context_db_sync(path=path)
        again = context_db_sync(path=path)
        after = (sha256(path), sha256(wal))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert (run.new, again.unchanged) == (40, 40)
    assert synced(1).seen_count == 2
    assert synced(40).seen_count == 1
    assert after == before


def test_run_summary_counts_by_project(store):
    """The run keeps per-project counts for the interop page."""
    run = context_db_sync(path=store())
    assert run.by_project[PROJECT] == {
        "new": 5,
        "changed": 0,
        "unchanged": 0,
        "gone": 0,
        "flagged": 0,
        "pushed": 0,
        "conflicted": 0,
    }
    assert SyncRun.objects.get() == run


def test_progress_is_reported_by_phase(store):
    """The progress callback hears every phase, ending each at its total."""
    heard = []
    context_db_sync(
        path=store(), progress=lambda phase, done, total: heard.append((phase, done, total))
    )
    phases = [phase for phase, _, _ in heard]
    assert phases[0] == "read" and "compare" in phases and phases[-1] == "write"
    assert heard[-1] == ("write", 6, 6)


def test_sessions_of_another_project_remain_after_a_filtered_sync(store):
    """A filtered sync leaves the other projects' sessions alone."""
    sessions = [make_session(), make_session(session_id="ses_other", project_path=OTHER_PROJECT)]
    path = store(sessions=sessions)
    context_db_sync(path=path)
    context_db_sync(path=path, project=PROJECT)
    assert UpstreamSession.objects.count() == 2


def test_the_timeline_tells_what_the_sync_did(store, client_as):
    """A memory's timeline names the upstream edit and the deletion, by "import"."""
    from memadmin.history.timeline import memory_timeline

    path = store()
    context_db_sync(path=path)
    write_upstream(path, "UPDATE memories SET content = 'Fact 2, edited.' WHERE id = 2")
    context_db_sync(path=path)
    write_upstream(path, "DELETE FROM memories WHERE id = 2")
    context_db_sync(path=path)
    memory = synced(2)
    labels = [(entry.label, entry.actor) for entry in memory_timeline(memory)]
    assert labels == [
        ("gone upstream", "import"),
        ("changed upstream", "import"),
        ("created", "import"),
    ]
    response = client_as("viewer").get(f"/memories/{memory.pk}/")
    assert response.status_code == 200
