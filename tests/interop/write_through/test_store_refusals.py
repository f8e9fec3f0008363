"""Refusals of write-through: each one leaves memadmin and the store exactly as they were."""

import shutil
import subprocess
import sys
import time

import pytest
from django.db import transaction

from memadmin.audit.models import AuditEvent
from memadmin.interop.write_through.store_writes import GATEWAY
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from memadmin.projects.store import StoreBusy, StoreRefused, StoreRowChanged
from tests.interop.conftest import PROJECT, sha256
from tests.interop.write_through.test_store_writes import store_exec, store_row, synced
from tests.upstream_store import build_store, make_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def synced_store(store):
    path = store(rows=[make_row(content="Use the VPN."), make_row(content="Tabs.")], sessions=[])
    context_db_sync(path=path)
    return path


def unchanged_memadmin(memory: Memory, content: str) -> None:
    """Assert memadmin kept the memory as it was: its text, one version, no audit event."""
    current = Memory.objects.get(pk=memory.pk)
    assert current.content == content
    assert current.history.count() == 1
    assert not AuditEvent.objects.filter(object_type="memory", actor_kind="person").exists()


def test_agent_edit_since_the_page_load_is_refused_with_both_texts(synced_store, people):
    """The agent changed the row after memadmin read it: refused, the store's text given."""
    memory = synced(1)
    store_exec(synced_store, "UPDATE memories SET content = 'Use the VPN, always.' WHERE id = 1")
    before = sha256(synced_store)
    with pytest.raises(StoreRowChanged) as refused:
        memory_update(memory=memory, actor=people["editor"], content="Use the new VPN.")
    assert refused.value.store["content"] == "Use the VPN, always."
    assert sha256(synced_store) == before
    unchanged_memadmin(memory, "Use the VPN.")


def test_a_row_gone_from_the_store_is_refused(synced_store, people):
    """A row deleted upstream is not recreated by an edit."""
    store_exec(synced_store, "DELETE FROM memories WHERE id = 1")
    with pytest.raises(StoreRowChanged, match="gone from the store"):
        memory_update(memory=synced(1), actor=people["editor"], content="Still here?")
    assert store_row(synced_store, 1) is None


def test_authority_tables_make_the_project_read_only(synced_store, people):
    """A project the Rust module manages is refused, named, and shown read-only with why."""
    store_exec(
        synced_store,
        "INSERT INTO authority_managed (project_path, since) VALUES (?, 0)",
        (PROJECT,),
    )
    before = sha256(synced_store)
    with pytest.raises(StoreRefused) as refused:
        memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
    assert refused.value.read_only
    assert PROJECT in refused.value.messages[0]
    assert "Rust module manages its memory writes" in refused.value.messages[0]
    assert sha256(synced_store) == before
    unchanged_memadmin(synced(1), "Use the VPN.")
    GATEWAY._probes.clear()
    assert "Rust module" in GATEWAY.read_only_reason(synced(1).project)


def test_the_authority_trigger_itself_is_read_as_a_refusal(synced_store, people):
    """Where the store's own trigger aborts the write, its message is the refusal."""
    store_exec(synced_store, "UPDATE context_privilege_state SET enabled = 1")
    store_exec(
        synced_store,
        "CREATE TRIGGER rust_owns BEFORE UPDATE ON memories BEGIN "
        "SELECT RAISE(ABORT, 'context.db memory writes are managed by the Rust module'); END",
    )
    with pytest.raises(StoreRefused, match="managed by the Rust module") as refused:
        memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
    assert refused.value.read_only
    unchanged_memadmin(synced(1), "Use the VPN.")


HOLD_LOCK = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
connection.execute("ROLLBACK")
"""


def test_a_writer_holding_the_lock_makes_the_save_wait_then_refuse(synced_store, people, settings):
    """A second process holding BEGIN IMMEDIATE: the save waits out the timeout, is refused."""
    settings.MEMADMIN_STORE_TIMEOUT = 0.5
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(synced_store), "5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        with pytest.raises(StoreBusy, match=r"(?i)the agent is writing to the store; try again"):
            memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
        assert time.monotonic() - started >= 0.45
    finally:
        holder.kill()
        holder.wait()
    unchanged_memadmin(synced(1), "Use the VPN.")
    memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
    assert store_row(synced_store, 1)["content"] == "Use the new VPN."


HOLD_EXCLUSIVE = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("PRAGMA journal_mode=DELETE")
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
connection.execute("ROLLBACK")
"""


def test_a_store_locked_for_a_moment_is_not_read_only(synced_store, people, settings):
    """Even readers shut out for a second (an exclusive lock): not read-only; a save waits.

    The pages' read-only banner opens the store to read it; a lock it meets there is no reason
    to call the store read-only (before: "the store file cannot be opened ... locked").
    """
    settings.MEMADMIN_STORE_TIMEOUT = 5.0
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_EXCLUSIVE, str(synced_store), "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert GATEWAY.read_only_reason(synced(1).project) == ""
        memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
    finally:
        holder.kill()
        holder.wait()
    assert store_row(synced_store, 1)["content"] == "Use the new VPN."
    assert synced(1).content == "Use the new VPN."


def test_a_store_replaced_by_another_is_never_written(synced_store, people, tmp_path):
    """Another store (another store_uuid) at the path: read-only, nothing written to it."""
    other = build_store(tmp_path / "other.db", rows=[make_row(content="Use the VPN.")])
    store_exec(
        other, "UPDATE context_store_meta SET value = 'another-uuid' WHERE key = 'store_uuid'"
    )
    shutil.copy(other, synced_store)
    for suffix in ("-wal", "-shm"):
        (synced_store.parent / (synced_store.name + suffix)).unlink(missing_ok=True)
    before = sha256(synced_store)
    with pytest.raises(StoreRefused, match="is now another store") as refused:
        memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
    assert refused.value.read_only
    assert sha256(synced_store) == before
    GATEWAY._probes.clear()
    assert "another store" in GATEWAY.read_only_reason(synced(1).project)


def test_a_store_deleted_while_serving_is_read_only(synced_store, people):
    """The file gone: refused as read-only, and no new empty store is created."""
    synced_store.unlink()
    with pytest.raises(StoreRefused, match="gone or unreadable") as refused:
        memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
    assert refused.value.read_only
    assert not synced_store.exists()
    unchanged_memadmin(synced(1), "Use the VPN.")


def test_an_unknown_not_null_column_makes_the_store_read_only(synced_store, people):
    """A NOT NULL column without a default memadmin does not know: read-only, with why."""
    store_exec(synced_store, "ALTER TABLE memories ADD COLUMN tenant TEXT NOT NULL DEFAULT 'x'")
    store_exec(synced_store, "ALTER TABLE memories ADD COLUMN shard INTEGER")
    store_exec(synced_store, "CREATE TABLE memory_future (id INTEGER PRIMARY KEY)")
    memory_update(memory=synced(1), actor=people["editor"], content="New columns are fine.")
    assert store_row(synced_store, 1)["content"] == "New columns are fine."
    # SQLite cannot add a NOT NULL column without a default: rebuild the table with one.
    store_exec(synced_store, "ALTER TABLE memories RENAME TO memories_old")
    store_exec(
        synced_store,
        "CREATE TABLE memories AS SELECT *, 0 AS region FROM memories_old WHERE 0",
    )
    store_exec(synced_store, "DROP TABLE memories")
    columns = store_row.__globals__["store_query"](synced_store, "PRAGMA table_info(memories_old)")
    ddl = ", ".join(f"{c[1]} {c[2]}" for c in columns) + ", region INTEGER NOT NULL"
    store_exec(synced_store, f"CREATE TABLE memories ({ddl})")
    store_exec(synced_store, "INSERT INTO memories SELECT *, 1 FROM memories_old")
    with pytest.raises(StoreRefused, match="region") as refused:
        memory_update(memory=synced(2), actor=people["editor"], content="Tabs only.")
    assert refused.value.read_only
    assert "NOT NULL columns without a default" in refused.value.messages[0]


def test_memadmin_failing_after_the_store_committed_converges_at_the_next_sync(
    synced_store, people
):
    """The store committed, memadmin rolled back: the next sync brings the store's row in as
    an `import` version: no duplicate, no lost edit."""
    with pytest.raises(RuntimeError), transaction.atomic():
        memory_update(memory=synced(1), actor=people["editor"], content="Use the new VPN.")
        raise RuntimeError("memadmin's transaction fails after the store committed")
    assert store_row(synced_store, 1)["content"] == "Use the new VPN."
    assert synced(1).content == "Use the VPN."
    run = context_db_sync(path=synced_store)
    assert run.changed == 1
    memory = synced(1)
    assert memory.content == "Use the new VPN."
    assert memory.history.first().history_actor == "import"
    assert Memory.objects.filter(content="Use the new VPN.").count() == 1
    # And the row is writable again straight away.
    memory_update(memory=memory, actor=people["editor"], content="Use the newest VPN.")
    assert store_row(synced_store, 1)["content"] == "Use the newest VPN."
