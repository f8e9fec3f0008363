"""The sync never throws away an edit: pulled, pushed or kept as a conflict, three ways."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.core.hashing import normalized_hash
from memadmin.interop.conflicts.services import conflict_resolve
from memadmin.interop.models import StoreBase, SyncConflict
from memadmin.interop.writing.services import context_db_sync
from memadmin.interop.writing.writer import SyncWriter
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.models import Project
from memadmin.projects.store import StoreRowChanged
from tests.interop.conftest import PROJECT
from tests.interop.write_through.test_store_writes import log_rows, store_exec, store_row, synced
from tests.meanwhile import Meanwhile
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


def agent_edit(path, row_id: int, content: str) -> None:
    """Change a row's text as the agent does: the text and its hash."""
    store_exec(
        path,
        "UPDATE memories SET content = ?, normalized_hash = ? WHERE id = ?",
        (content, normalized_hash(content), row_id),
    )


@pytest.fixture
def synced_store(store):
    path = store(rows=[make_row(content="Use the VPN."), make_row(content="Tabs.")], sessions=[])
    context_db_sync(path=path)
    return path


@pytest.fixture
def pending(settings):
    """Edits kept pending, as on a team server; the sync runs where the file is."""
    settings.MEMADMIN_STORE_WRITES = "pending"

    def back_to_the_machine_with_the_file():
        settings.MEMADMIN_STORE_WRITES = "through"

    return back_to_the_machine_with_the_file


def test_only_upstream_changed_is_pulled(synced_store, people):
    """The agent's edit comes in, and memadmin's next edit goes out over it."""
    agent_edit(synced_store, 1, "Use the VPN, always.")
    run = context_db_sync(path=synced_store)
    assert (run.changed, run.pushed, run.conflicted) == (1, 0, 0)
    memory_update(memory=synced(1), actor=people["editor"], content="Use the office VPN.")
    assert store_row(synced_store, 1)["content"] == "Use the office VPN."


def test_a_pending_edit_is_pushed_by_the_next_sync(synced_store, people, pending):
    """An edit kept while the store was out of reach is marked pending, then pushed."""
    memory_update(memory=synced(1), actor=people["editor"], content="Use the office VPN.")
    assert store_row(synced_store, 1)["content"] == "Use the VPN."
    assert StoreBase.objects.get(memory=synced(1)).pending_since is not None
    store_exec(synced_store, "UPDATE memories SET seen_count = 7 WHERE id = 1")
    pending()
    run = context_db_sync(path=synced_store)
    assert (run.pushed, run.conflicted) == (1, 0)
    row = store_row(synced_store, 1)
    assert (row["content"], row["seen_count"]) == ("Use the office VPN.", 7)
    assert log_rows(synced_store)[-1][0] == "update"
    memory = synced(1)
    assert (memory.content, memory.seen_count) == ("Use the office VPN.", 7)
    assert StoreBase.objects.get(memory=memory).pending_since is None
    assert memory.history.first().history_actor == "import"
    again = context_db_sync(path=synced_store)
    assert (again.pushed, again.changed, again.unchanged) == (0, 0, 2)


def test_a_pending_create_is_pushed_once(synced_store, people, pending):
    """A memory created on the team server reaches the store once, as a user row."""
    memory = memory_create(
        project=Project.objects.get(identity=PROJECT),
        category="ARCHITECTURE",
        content="The ledger is pure Python.",
        actor=people["editor"],
    )
    assert memory.upstream_id is None
    pending()
    run = context_db_sync(path=synced_store)
    assert (run.pushed, run.new) == (1, 0)
    memory.refresh_from_db()
    row = store_row(synced_store, memory.upstream_id)
    assert (row["content"], row["source_type"]) == ("The ledger is pure Python.", "user")
    again = context_db_sync(path=synced_store)
    assert (again.pushed, again.new) == (0, 0)
    assert Memory.objects.filter(content="The ledger is pure Python.").count() == 1


def test_both_changed_is_a_conflict_and_neither_side_is_overwritten(synced_store, people, pending):
    """Both sides edited the row: a conflict, listed with both texts; nothing overwritten."""
    memory_update(memory=synced(1), actor=people["editor"], content="Use the office VPN.")
    agent_edit(synced_store, 1, "Use the VPN, always.")
    pending()
    run = context_db_sync(path=synced_store)
    assert (run.conflicted, run.pushed, run.changed) == (1, 0, 0)
    assert store_row(synced_store, 1)["content"] == "Use the VPN, always."
    assert synced(1).content == "Use the office VPN."
    conflict = SyncConflict.objects.get()
    assert conflict.store_values["content"] == "Use the VPN, always."
    assert conflict.memadmin_values["content"] == "Use the office VPN."
    assert context_db_sync(path=synced_store).conflicted == 1
    assert SyncConflict.objects.count() == 1
    with pytest.raises(StoreRowChanged, match="sync conflict"):
        memory_update(memory=synced(1), actor=people["editor"], content="Third text.")


def test_both_changed_the_same_way_is_no_conflict(synced_store, people, pending):
    """Both sides made the same edit: pulled, no conflict."""
    memory_update(memory=synced(1), actor=people["editor"], content="Use the office VPN.")
    agent_edit(synced_store, 1, "Use the office VPN.")
    pending()
    run = context_db_sync(path=synced_store)
    assert (run.conflicted, run.pushed) == (0, 0)
    assert not SyncConflict.objects.exists()


def test_pull_only_takes_the_store_as_it_is(synced_store, people, pending):
    """--pull-only keeps today's behaviour: the store's row wins, nothing pushed."""
    memory_update(memory=synced(1), actor=people["editor"], content="Use the office VPN.")
    pending()
    run = context_db_sync(path=synced_store, pull_only=True)
    assert (run.pushed, run.changed) == (0, 1)
    assert synced(1).content == "Use the VPN."
    assert store_row(synced_store, 1)["content"] == "Use the VPN."


@pytest.fixture
def conflict(synced_store, people, pending):
    memory_update(memory=synced(1), actor=people["editor"], content="Use the office VPN.")
    agent_edit(synced_store, 1, "Use the VPN, always.")
    pending()
    context_db_sync(path=synced_store)
    return SyncConflict.objects.get()


@pytest.mark.parametrize(
    ("keep", "content", "expected"),
    [
        ("store", "", "Use the VPN, always."),
        ("memadmin", "", "Use the office VPN."),
        ("merged", "Use the office VPN, always.", "Use the office VPN, always."),
    ],
)
def test_a_curator_resolves_a_conflict(synced_store, conflict, people, keep, content, expected):
    """The chosen version is in force on both sides, with an audit record; syncs agree."""
    conflict_resolve(conflict=conflict, keep=keep, content=content, actor=people["curator"])
    assert synced(1).content == expected
    assert store_row(synced_store, 1)["content"] == expected
    assert not SyncConflict.objects.exists()
    event = AuditEvent.objects.get(action="conflict_resolved")
    assert event.changes["keep"] == keep
    run = context_db_sync(path=synced_store)
    assert (run.changed, run.pushed, run.conflicted) == (0, 0, 0)


def test_a_resolution_over_a_store_that_moved_again_is_refused(synced_store, conflict, people):
    """The agent edited again after the conflict was found: refused, nothing written."""
    agent_edit(synced_store, 1, "Fourth text.")
    with pytest.raises(Exception, match="changed this memory in the store again"):
        conflict_resolve(conflict=conflict, keep="memadmin", actor=people["curator"])
    assert store_row(synced_store, 1)["content"] == "Fourth text."
    assert synced(1).content == "Use the office VPN."
    assert SyncConflict.objects.count() == 1


def test_the_command_counts_pulled_pushed_conflicted_and_takes_pull_only(
    synced_store, people, pending
):
    """`sync_context_db` prints the three-way counts; `--pull-only` pushes nothing."""
    import io

    from django.core.management import call_command

    memory_update(memory=synced(1), actor=people["editor"], content="Use the office VPN.")
    agent_edit(synced_store, 2, "Tabs, never spaces.")
    pending()
    out = io.StringIO()
    call_command("sync_context_db", str(synced_store), "--no-progress", "--pull-only", stdout=out)
    assert "three-way: 2 pulled, 0 pushed, 0 conflicted" in out.getvalue()
    assert store_row(synced_store, 1)["content"] == "Use the VPN."


def test_a_resolution_of_a_conflict_a_sync_settled_meanwhile_is_refused(conflict, people):
    """The conflict the page showed is gone (a sync settled it): refused, nothing written."""
    SyncConflict.objects.filter(pk=conflict.pk).delete()
    events = AuditEvent.objects.count()
    with pytest.raises(ValidationError, match="settled this conflict meanwhile"):
        conflict_resolve(conflict=conflict, keep="memadmin", actor=people["curator"])
    assert synced(1).content == "Use the office VPN."
    assert AuditEvent.objects.count() == events


@pytest.mark.django_db(transaction=True)
def test_a_resolution_coming_while_the_sync_settles_the_conflict_waits_for_it(
    synced_store, conflict, people, monkeypatch
):
    """A curator resolves the conflict while a sync's last transaction records it again: the
    resolution waits for the sync, then puts the chosen version in force on both sides.

    The resolution took the conflict's row, then waited for the memory, which the sync held
    while it waited for the conflict's row: on PostgreSQL a deadlock, broken by failing one.
    """
    agent_edit(synced_store, 1, "Use the VPN, always and everywhere.")
    resolver = Meanwhile(
        lambda: conflict_resolve(conflict=conflict, keep="memadmin", actor=people["curator"])
    )
    audit = SyncWriter.audit

    def with_a_resolution_meanwhile(self):
        resolver.start()
        return audit(self)

    monkeypatch.setattr(SyncWriter, "audit", with_a_resolution_meanwhile)
    run = context_db_sync(path=synced_store)
    resolved = resolver.outcome()
    assert run.outcome == "synced", run.problems
    assert isinstance(resolved, Memory), f"the resolution did not go through: {resolved!r}"
    assert synced(1).content == "Use the office VPN."
    assert store_row(synced_store, 1)["content"] == "Use the office VPN."
    assert not SyncConflict.objects.exists()
