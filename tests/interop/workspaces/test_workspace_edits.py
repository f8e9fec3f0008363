"""Editing a workspace writes it back to a real store built with upstream's workspace DDL.

As upstream's dashboard does (`workspaces.rs`, `apply_workspace_changes`): the categories are
stored as a compact JSON array in priority order, members removed, added and renamed in one
transaction, and every old and new member's ``project_memory_epoch`` bumped once.
"""

import sqlite3

import pytest

from memadmin.audit.models import AuditEvent
from memadmin.core.contextdb.workspace_writing import MemberValues
from memadmin.interop.models import SyncRun, UpstreamStore, Workspace
from memadmin.interop.worker.incremental import store_refresh
from memadmin.interop.workspaces import sync as workspaces_sync
from memadmin.interop.workspaces.services import WorkspaceRefused, workspace_update
from memadmin.interop.writing.services import context_db_sync
from tests.meanwhile import Meanwhile

from ..workspace_edit_store import (
    API,
    EPOCHS,
    OPS,
    OUTSIDER,
    SOLO,
    WEB,
    build_edit_store,
    run_sql,
    store_state,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(tmp_path):
    """A synced store whose workspace 1 holds API, WEB and OPS; SOLO is in no workspace."""
    path = build_edit_store(tmp_path / "context.db")
    context_db_sync(path=path)
    return path


def workspace() -> Workspace:
    return Workspace.objects.get(upstream_id=1)


def members_of(row: Workspace, **changes) -> dict[str, MemberValues]:
    members = {
        m.project_identity: MemberValues(m.display_name, m.display_path) for m in row.members.all()
    }
    for identity, values in changes.items():
        if values is None:
            members.pop(identity)
        else:
            members[identity] = values
    return members


def update(people, row=None, **options):
    row = row or workspace()
    options.setdefault("version", row.digest())
    options.setdefault("share_categories", ["CONSTRAINTS"])
    options.setdefault("members", members_of(row))
    return workspace_update(workspace=row, actor=people["curator"], **options)


def test_an_edit_is_written_as_upstreams_dashboard_writes_it(team, people):
    """Categories, a removal, an addition and a rename land in the store; all four bump once."""
    row = workspace()
    members = members_of(row)
    members.pop(OPS)
    members[SOLO] = MemberValues("solo", "/work/solo")
    members[WEB] = MemberValues("web (renamed)", members[WEB].display_path)
    update(people, share_categories=["NAMING", "PROJECT_RULES", "NAMING"], members=members)

    state = store_state(team)
    assert state["shares"] == '["PROJECT_RULES","NAMING"]'
    assert state["members"] == {
        API: ("api <core> & co", "/work/api"),
        WEB: ("web (renamed)", "/work/web"),
        SOLO: ("solo", "/work/solo"),
    }
    assert state["epochs"] == {identity: epoch + 1 for identity, epoch in EPOCHS.items()}

    row = workspace()
    assert row.share_categories == ["NAMING", "PROJECT_RULES"]
    assert row.share_categories_raw == '["PROJECT_RULES","NAMING"]'
    assert {m.project_identity: m.display_name for m in row.members.all()} == {
        API: "api <core> & co",
        WEB: "web (renamed)",
        SOLO: "solo",
    }
    assert row.members.get(project_identity=SOLO).project.identity == SOLO
    assert row.history.first().history_actor == "curator"
    event = AuditEvent.objects.get(action="workspace_changed")
    assert event.actor_label == "curator"
    assert event.changes["added"] == [SOLO] and event.changes["removed"] == [OPS]
    assert event.changes["display_names"] == {WEB: ["web>ui", "web (renamed)"]}


def test_the_next_sync_finds_memadmins_rows_already_as_the_store_has_them(team, people):
    """After a write-through, a sync writes no new workspace or member version."""
    members = members_of(workspace(), **{SOLO: MemberValues("solo", "")})
    update(people, members=members)
    versions = Workspace.history.count()
    context_db_sync(path=team)
    assert Workspace.history.count() == versions
    assert set(members_of(workspace())) == {API, WEB, OPS, SOLO}


def test_swapping_two_display_names_passes_the_unique_name_index(team, people):
    """Two members trade names in one save (the store's name index would refuse it directly)."""
    row = workspace()
    members = members_of(row)
    api, web = members[API], members[WEB]
    members[API] = MemberValues(web.display_name, api.display_path)
    members[WEB] = MemberValues(api.display_name, web.display_path)
    update(people, members=members)
    state = store_state(team)["members"]
    assert state[API][0] == "web>ui" and state[WEB][0] == "api <core> & co"


def test_a_save_that_changes_nothing_shared_bumps_no_epoch(team, people):
    """The same categories and members: nothing is written, no member rebuilds its block."""
    before = store_state(team)
    update(people, share_categories=["NAMING", "CONSTRAINTS"])
    assert store_state(team) == before
    assert store_state(team)["epochs"] == EPOCHS
    assert not AuditEvent.objects.filter(action="workspace_changed").exists()


@pytest.mark.parametrize(
    ("options", "code", "says"),
    [
        ({"share_categories": ["OPS_RULES"]}, "bad", "'OPS_RULES' is not a category"),
        ({"version": "0" * 32}, "stale", "changed since this page was loaded"),
        ({"version": ""}, "stale", "changed since this page was loaded"),
        (
            {"members": {OUTSIDER: MemberValues("outsider", "")}},
            "bad",
            f"The store holds no memory of project {OUTSIDER}",
        ),
        (
            {"members": {API: MemberValues("same", ""), WEB: MemberValues("same", "")}},
            "bad",
            "'same' is used by both",
        ),
        ({"members": {API: MemberValues("  ", "")}}, "bad", "display name of"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(team, people, options, code, says):
    """Each refusal names the problem; neither the store nor memadmin changes."""
    before, versions = store_state(team), Workspace.history.count()
    with pytest.raises(WorkspaceRefused) as refused:
        update(people, **options)
    assert refused.value.code == code
    assert says in str(refused.value)
    assert store_state(team) == before
    assert Workspace.history.count() == versions
    assert not AuditEvent.objects.filter(action="workspace_changed").exists()


def test_a_project_another_writer_owns_is_refused(team, people):
    """Upstream's Rust module holding a member's writes makes the edit refused, whole."""
    run_sql(team, "INSERT INTO authority_managed (project_path, since) VALUES (?, 0)", (OPS,))
    before = store_state(team)
    with pytest.raises(WorkspaceRefused) as refused:
        update(people, share_categories=["NAMING"])
    assert refused.value.code == "store_read_only"
    assert "Rust module manages its memory writes" in str(refused.value)
    assert store_state(team) == before
    assert workspace().share_categories == ["CONSTRAINTS", "NAMING"]


def test_a_workspace_changed_in_the_store_since_the_sync_is_not_overwritten(team, people):
    """Another writer's edit since the last sync refuses the save; the next sync brings it in."""
    run_sql(team, "UPDATE workspaces SET share_categories = '[\"ARCHITECTURE\"]' WHERE id = 1")
    with pytest.raises(WorkspaceRefused) as refused:
        update(people, share_categories=["NAMING"])
    assert refused.value.code == "store_changed"
    assert store_state(team)["shares"] == '["ARCHITECTURE"]'
    context_db_sync(path=team, incremental=True, record_empty=False)
    assert workspace().share_categories == ["ARCHITECTURE"]


def test_an_incremental_sync_with_no_memory_change_reads_the_workspaces(team):
    """A workspace edit by another writer appears after the next incremental sync and refresh."""
    run_sql(team, "UPDATE workspaces SET share_categories = '[\"NAMING\"]' WHERE id = 1")
    run_sql(
        team, "UPDATE workspace_members SET display_name = 'ops' WHERE project_path = ?", (OPS,)
    )
    assert store_refresh(UpstreamStore.objects.get()).startswith("synced")
    row = workspace()
    assert row.share_categories == ["NAMING"]
    assert row.members.get(project_identity=OPS).display_name == "ops"
    runs = SyncRun.objects.count()
    assert store_refresh(UpstreamStore.objects.get()) == "unchanged"
    assert SyncRun.objects.count() == runs


def test_pending_mode_keeps_the_edit_until_the_sync_pushes_it(team, people, settings):
    """On a server without the file the edit is kept, marked; the sync writes it and bumps."""
    settings.MEMADMIN_STORE_WRITES = "pending"
    before = store_state(team)
    update(
        people, share_categories=["ARCHITECTURE"], members=members_of(workspace(), **{OPS: None})
    )
    assert store_state(team) == before
    row = workspace()
    assert row.pending_since is not None and row.share_categories == ["ARCHITECTURE"]
    assert AuditEvent.objects.get(action="workspace_changed").changes["pending"] is True

    context_db_sync(path=team, incremental=True, record_empty=False)
    state = store_state(team)
    assert state["shares"] == '["ARCHITECTURE"]'
    assert OPS not in state["members"]
    assert state["epochs"] == {
        identity: epoch + (identity != SOLO) for identity, epoch in EPOCHS.items()
    }
    row = workspace()
    assert row.pending_since is None and row.share_categories == ["ARCHITECTURE"]
    assert set(members_of(row)) == {API, WEB}


def test_a_pending_edit_meets_a_store_edit_and_the_store_wins_with_a_warning(
    team, people, settings
):
    """The store changed the workspace meanwhile: its edit is kept, memadmin's named as dropped."""
    settings.MEMADMIN_STORE_WRITES = "pending"
    update(people, share_categories=["ARCHITECTURE"])
    run_sql(team, "UPDATE workspaces SET share_categories = '[\"NAMING\"]' WHERE id = 1")
    run = context_db_sync(path=team, incremental=True)
    assert store_state(team)["shares"] == '["NAMING"]'
    assert workspace().share_categories == ["NAMING"] and workspace().pending_since is None
    warnings = " ".join(str(w) for w in run.warnings)
    assert "pending edit (shares ARCHITECTURE" in warnings and "the store's is kept" in warnings


def test_pull_only_servers_refuse_workspace_edits(team, people, settings):
    """With MEMADMIN_STORE_WRITES=off an edit would be undone by the next sync: refused."""
    settings.MEMADMIN_STORE_WRITES = "off"
    with pytest.raises(WorkspaceRefused) as refused:
        update(people, share_categories=["NAMING"])
    assert refused.value.code == "store_off"
    assert workspace().share_categories == ["CONSTRAINTS", "NAMING"]


def test_an_edit_through_the_store_on_a_pending_workspace_writes_it_whole(team, people, settings):
    """A workspace left pending is checked against the store as last read, then written."""
    settings.MEMADMIN_STORE_WRITES = "pending"
    update(people, share_categories=["ARCHITECTURE"])
    settings.MEMADMIN_STORE_WRITES = "through"
    update(people, share_categories=["ARCHITECTURE", "NAMING"])
    assert store_state(team)["shares"] == '["ARCHITECTURE","NAMING"]'
    assert workspace().pending_since is None


def test_a_pending_edit_the_store_cannot_take_now_is_kept_for_the_next_sync(team, people, settings):
    """The agent holding the write lock: the sync keeps memadmin's edit pending, then pushes it."""
    settings.MEMADMIN_STORE_WRITES = "pending"
    settings.MEMADMIN_STORE_TIMEOUT = 0.2
    update(people, share_categories=["ARCHITECTURE"])
    agent = sqlite3.connect(team, isolation_level=None)
    try:
        agent.execute("BEGIN IMMEDIATE")
        run = context_db_sync(path=team, incremental=True)
        agent.execute("ROLLBACK")
    finally:
        agent.close()
    assert "kept for the next sync" in " ".join(str(w) for w in run.warnings)
    row = workspace()
    assert row.pending_since is not None and row.share_categories == ["ARCHITECTURE"]
    assert store_state(team)["shares"] == '["NAMING", "CONSTRAINTS"]'
    context_db_sync(path=team, incremental=True)
    assert store_state(team)["shares"] == '["ARCHITECTURE"]'
    assert workspace().pending_since is None


@pytest.mark.django_db(transaction=True)
def test_an_edit_made_while_the_sync_takes_the_workspaces_waits_and_is_refused_cleanly(
    team, people, settings, monkeypatch
):
    """The store changed a workspace; a person's edit of it comes while the sync's last
    transaction takes it: the edit waits for the sync, then is refused as stale, nothing
    written, and the sync completes with the store's workspace.

    On PostgreSQL the edit took the workspace's row first and then waited for the sync's
    audit, while the sync waited for the row: a deadlock, which PostgreSQL broke by failing
    one of them (the sync, or the person's save with a server error).
    """
    settings.MEMADMIN_STORE_WRITES = "pending"
    page_version = workspace().digest()
    run_sql(team, "UPDATE workspaces SET share_categories = '[\"NAMING\"]' WHERE id = 1")
    editor = Meanwhile(
        lambda: update(people, share_categories=["ARCHITECTURE"], version=page_version)
    )
    take = workspaces_sync._sync_workspaces

    def with_an_edit_meanwhile(*args):
        editor.start()
        return take(*args)

    monkeypatch.setattr(workspaces_sync, "_sync_workspaces", with_an_edit_meanwhile)
    run = context_db_sync(path=team)
    refused = editor.outcome()
    assert run.outcome == "synced", run.problems
    assert isinstance(refused, WorkspaceRefused) and refused.code == "stale", repr(refused)
    row = workspace()
    assert row.share_categories == ["NAMING"] and row.pending_since is None
