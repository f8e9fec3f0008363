"""Write-through on a store with upstream's memory lifecycle (schema v99 to v100).

Each write follows upstream's applier for a dashboard operation (``lifecycle-applier.ts``,
``commitMemoryRevision``): the revision compare-and-set and bump, a ``memory_history`` row
with the previous text and the person's reason, one ``memory_journal`` receipt, the log's
``adoption_class``; a text edit clears the verification; a merge links each source to its
successor, which takes the sources' evidence.
"""

import json

import pytest

from memadmin.core.hashing import normalized_hash
from memadmin.curation.bulk_services import bulk_apply
from memadmin.curation.merge_services import memory_merge, memory_merge_undo
from memadmin.interop.conflicts.services import conflict_resolve
from memadmin.interop.models import SyncConflict
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.models import Project
from memadmin.projects.store import StoreDuplicate
from tests.interop.conftest import PROJECT
from tests.interop.planning.test_sync_threeway import agent_edit
from tests.interop.write_through.test_store_writes import store_exec, store_query, store_row
from tests.lifecycle_store import add_lifecycle
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


def history(path) -> list[tuple]:
    return store_query(
        path,
        "SELECT memory_id, revision, previous_text, reason, source_ids_json, decision_key "
        "FROM memory_history ORDER BY id",
    )


def journal(path) -> list[tuple]:
    return store_query(
        path,
        "SELECT project_path, decision_key, operation, receipt_json FROM memory_journal "
        "ORDER BY id",
    )


def adoption(path) -> list[tuple]:
    return store_query(
        path,
        "SELECT mutation_type, target_memory_id, adoption_class FROM memory_mutation_log "
        "ORDER BY id",
    )


def synced(upstream_id: int) -> Memory:
    return Memory.objects.get(project__identity=PROJECT, upstream_id=upstream_id)


@pytest.fixture
def lifecycle_store(store):
    """A lifecycle store of three rows (ids 1..3), row 1 verified, rows 2 and 3 with evidence."""
    path = store(
        rows=[
            make_row(content="Use scripts/release.sh VERSION for releases."),
            make_row(content="Deploys need the VPN.", category="CONSTRAINTS"),
            make_row(content="VPN before every deploy.", category="CONSTRAINTS"),
        ],
        sessions=[],
    )
    add_lifecycle(path)
    store_exec(
        path,
        "UPDATE memories SET verify_result = 'ok', verify_files_json = '[\"a.sh\"]', "
        "verify_commit = 'abc123' WHERE id = 1",
    )
    store_exec(
        path,
        "INSERT INTO memory_verifications (memory_id, result, checked_at) VALUES (1, 'ok', 5)",
    )
    for memory_id, session in ((2, "ses_a"), (3, "ses_b"), (3, "ses_a")):
        store_exec(
            path,
            "INSERT INTO memory_evidence (memory_id, content_hash, source_session_id, "
            "source_type, observed_at) VALUES (?, 'h', ?, 'historian', 7)",
            (memory_id, session),
        )
    context_db_sync(path=path)
    return path


def test_text_edit_writes_history_journal_and_live_log(lifecycle_store, people):
    """A text edit bumps the revision, keeps the previous text with the reason typed, writes
    one applied receipt, logs `update` as live and clears the row's verification; the next
    sync changes nothing."""
    memory_update(
        memory=synced(1),
        actor=people["editor"],
        content="Release with scripts/release.sh V.",
        reason="the script takes V now",
    )
    row = store_row(lifecycle_store, 1)
    assert (row["content"], row["revision"]) == ("Release with scripts/release.sh V.", 2)
    assert (row["verify_result"], row["verify_files_json"], row["verify_commit"]) == (
        None,
        None,
        None,
    )
    assert store_query(lifecycle_store, "SELECT count(*) FROM memory_verifications") == [(0,)]
    [(memory_id, revision, previous, reason, sources, key)] = history(lifecycle_store)
    assert (memory_id, revision, previous, reason) == (
        1,
        1,
        "Use scripts/release.sh VERSION for releases.",
        "the script takes V now",
    )
    assert json.loads(sources) == [1]
    [(project, journal_key, operation, receipt)] = journal(lifecycle_store)
    assert (project, journal_key, operation) == (PROJECT, key, "dashboard_content")
    assert json.loads(receipt) | {} == {
        "state": "applied",
        "reason": "dashboard_content",
        "memoryIds": [1],
        "adoptionClass": "live",
        "writer": "memadmin",
    }
    assert adoption(lifecycle_store) == [("update", 1, "live")]
    assert store_query(
        lifecycle_store,
        "SELECT decision_key, project_path, receipt_json FROM memory_decision_receipts",
    ) == [(key, PROJECT, receipt)]
    run = context_db_sync(path=lifecycle_store)
    assert (run.changed, run.new) == (0, 0)


def test_an_edit_without_a_reason_names_its_operation(lifecycle_store, people):
    """`memory_history.reason` is NOT NULL upstream: with no reason typed it names the operation."""
    memory_update(memory=synced(1), actor=people["editor"], content="Release by the script.")
    assert history(lifecycle_store)[0][3] == "dashboard_content"


def test_archive_is_a_dashboard_archive(lifecycle_store, people):
    """An archive keeps the text and reason in history, journals `dashboard_archive`, and its
    `archive` log row is live; the verification of an unchanged text stays."""
    memory_archive(memory=synced(1), actor=people["editor"], reason="release script retired")
    row = store_row(lifecycle_store, 1)
    assert (row["status"], row["revision"], row["verify_result"]) == ("archived", 2, "ok")
    assert [entry[:4] for entry in history(lifecycle_store)] == [
        (1, 1, "Use scripts/release.sh VERSION for releases.", "release script retired")
    ]
    assert [entry[2] for entry in journal(lifecycle_store)] == ["dashboard_archive"]
    assert adoption(lifecycle_store) == [("archive", 1, "live")]


def test_a_bulk_archive_is_one_decision(lifecycle_store, people):
    """A bulk archive of two memories is one journal receipt naming both, each with history."""
    bulk_apply(
        action="archive",
        memory_ids=[synced(1).pk, synced(2).pk],
        expected=2,
        actor=people["editor"],
        reason="cleanup",
    )
    assert [(entry[0], entry[3]) for entry in history(lifecycle_store)] == [
        (1, "cleanup"),
        (2, "cleanup"),
    ]
    [entry] = journal(lifecycle_store)
    assert json.loads(entry[3])["memoryIds"] == [1, 2]


def test_merge_links_successor_and_combines_evidence(lifecycle_store, people):
    """A merge archives each source with history and a successor link; the merged row takes
    the sources' evidence (one row per session and hash) and is written as `agent`."""
    result = memory_merge(
        memories=[synced(2), synced(3)],
        content="Deploys need the VPN, every time.",
        actor=people["curator"],
        reason="same fact twice",
    )
    new_id = result.upstream_id
    assert [(entry[0], entry[1], entry[3]) for entry in history(lifecycle_store)] == [
        (2, 1, "same fact twice"),
        (3, 1, "same fact twice"),
    ]
    assert store_query(
        lifecycle_store, "SELECT source_id, successor_id FROM memory_successor_links ORDER BY 1"
    ) == [(2, new_id), (3, new_id)]
    assert store_query(
        lifecycle_store,
        "SELECT source_session_id FROM memory_evidence WHERE memory_id = ? ORDER BY 1",
        (new_id,),
    ) == [("ses_a",), ("ses_b",)]
    assert [store_row(lifecycle_store, n)["revision"] for n in (2, 3)] == [2, 2]
    assert adoption(lifecycle_store) == [("superseded", 2, "live"), ("superseded", 3, "live")]
    assert [entry[2] for entry in journal(lifecycle_store)] == ["dashboard_archive"]
    assert store_row(lifecycle_store, new_id)["source_type"] == "agent"
    assert Memory.objects.get(pk=result.pk).source_type == "agent"


def test_a_created_row_is_not_claimed_as_a_user_message(lifecycle_store, people):
    """A memory typed in memadmin is an `agent` row of a lifecycle store (upstream keeps
    `user` for host-verified user messages), and memadmin's memory says the same."""
    memory = memory_create(
        project=Project.objects.get(identity=PROJECT),
        category="ARCHITECTURE",
        content="The ledger is pure Python.",
        actor=people["editor"],
    )
    row = store_row(lifecycle_store, memory.upstream_id)
    assert (row["source_type"], row["revision"]) == ("agent", 1)
    assert Memory.objects.get(pk=memory.pk).source_type == "agent"
    assert journal(lifecycle_store) == []


def test_a_refused_write_leaves_no_lifecycle_record(lifecycle_store, people):
    """A write the store refuses (the text is another row's) writes no history or receipt."""
    store_exec(
        lifecycle_store,
        "INSERT INTO memories (project_path, category, content, normalized_hash, first_seen_at,"
        " created_at, updated_at, last_seen_at) VALUES (?, 'CONSTRAINTS', 'Only over VPN.', ?,"
        " 1, 1, 1, 1)",
        (PROJECT, normalized_hash("Only over VPN.")),
    )
    with pytest.raises(StoreDuplicate):
        memory_update(memory=synced(3), actor=people["editor"], content="Only over VPN.")
    assert history(lifecycle_store) == []
    assert journal(lifecycle_store) == []
    assert store_query(lifecycle_store, "SELECT count(*) FROM memory_decision_receipts") == [(0,)]
    assert store_row(lifecycle_store, 3)["revision"] == 1


def test_a_store_without_the_lifecycle_keeps_todays_writes(store, people):
    """Without the v99 tables a create is a `user` row and an edit writes no lifecycle table."""
    path = store(rows=[make_row()], sessions=[])
    context_db_sync(path=path)
    memory_update(memory=synced(1), actor=people["editor"], content="Release by the script.")
    memory = memory_create(
        project=Project.objects.get(identity=PROJECT),
        category="ARCHITECTURE",
        content="The ledger is pure Python.",
        actor=people["editor"],
    )
    assert store_row(path, memory.upstream_id)["source_type"] == "user"
    assert store_row(path, 1)["content"] == "Release by the script."
    tables = {row[0] for row in store_query(path, "SELECT name FROM sqlite_master")}
    assert not tables & {"memory_history", "memory_journal"}


def test_undoing_a_merge_drops_its_links_and_evidence(lifecycle_store, people):
    """The merged row deleted by the undo takes its successor links and evidence with it;
    the sources' own evidence stays."""
    result = memory_merge(
        memories=[synced(2), synced(3)],
        content="Deploys need the VPN, every time.",
        actor=people["curator"],
    )
    memory_merge_undo(result=Memory.objects.get(pk=result.pk), actor=people["curator"])
    assert store_row(lifecycle_store, result.upstream_id) is None
    assert store_query(lifecycle_store, "SELECT count(*) FROM memory_successor_links") == [(0,)]
    assert store_query(
        lifecycle_store, "SELECT memory_id, count(*) FROM memory_evidence GROUP BY 1 ORDER BY 1"
    ) == [(2, 1), (3, 2)]
    assert [store_row(lifecycle_store, n)["status"] for n in (2, 3)] == ["active", "active"]


def test_a_pushed_create_is_not_claimed_as_a_user_message(lifecycle_store, people, settings):
    """A memory kept pending and pushed by the next sync is an `agent` row too."""
    settings.MEMADMIN_STORE_WRITES = "pending"
    memory = memory_create(
        project=Project.objects.get(identity=PROJECT),
        category="ARCHITECTURE",
        content="The ledger is pure Python.",
        actor=people["editor"],
    )
    settings.MEMADMIN_STORE_WRITES = "through"
    context_db_sync(path=lifecycle_store)
    [(source_type,)] = store_query(
        lifecycle_store,
        "SELECT source_type FROM memories WHERE content = ?",
        ("The ledger is pure Python.",),
    )
    assert source_type == "agent"
    assert Memory.objects.get(pk=memory.pk).upstream_id is not None


def test_a_resolved_conflict_keeps_the_curators_reason(lifecycle_store, people, settings):
    """Keeping memadmin's text over the agent's writes history with the reason typed."""
    settings.MEMADMIN_STORE_WRITES = "pending"
    memory_update(memory=synced(1), actor=people["editor"], content="Release by the script.")
    agent_edit(lifecycle_store, 1, "Release by hand.")
    settings.MEMADMIN_STORE_WRITES = "through"
    context_db_sync(path=lifecycle_store)
    conflict_resolve(
        conflict=SyncConflict.objects.get(),
        keep="memadmin",
        actor=people["curator"],
        reason="the script is the rule",
    )
    assert store_row(lifecycle_store, 1)["content"] == "Release by the script."
    assert [entry[2:4] for entry in history(lifecycle_store)] == [
        ("Release by hand.", "the script is the rule")
    ]
