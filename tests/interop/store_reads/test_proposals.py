"""The agent's pending proposals (`memory_tool_proposals`), shown read-only, stale ones marked."""

import json
import sqlite3

import pytest
from django.urls import reverse
from django.utils.html import escape

from memadmin.core.contextdb.proposals import proposed_change, read_proposals
from memadmin.interop.store_reads.proposals import NO_HUMAN_DECISION
from memadmin.interop.writing.services import context_db_sync
from tests.interop.conftest import OTHER_PROJECT, PROJECT
from tests.interop.write_through.test_store_writes import store_exec, store_query, synced
from tests.lifecycle_store import add_lifecycle
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


def propose(path, *, key, operation, targets, expected, proposal, project=PROJECT, at=10):
    """Add a proposal row as upstream's `proposeMemoryMutation` writes it."""
    store_exec(
        path,
        "INSERT INTO memory_tool_proposals (project_path, source_session_id, proposal_key, "
        "writer, operation, target_ids_json, expected_revisions_json, proposal_json, reason, "
        "created_at) VALUES (?, 'ses_cur', ?, 'curate', ?, ?, ?, ?, 'MEMORY_PENDING_PROPOSAL', ?)",
        (project, key, operation, targets, expected, proposal, at),
    )


@pytest.fixture
def proposals_store(store):
    """Rows 1..3 of the project; an update of 1 (current), a merge of 2 and 3 (3 moved since),
    a malformed archive of 1, and a proposal of another project."""
    path = add_lifecycle(
        store(
            rows=[
                make_row(content="Use the VPN."),
                make_row(content="Tabs.", category="NAMING"),
                make_row(content="Tabs only.", category="NAMING"),
            ],
            sessions=[],
        )
    )
    propose(
        path,
        key="k1",
        operation="update",
        targets="[1]",
        expected='[{"id":1,"revision":1}]',
        proposal=json.dumps({"content": "Use the office VPN."}),
    )
    propose(
        path,
        key="k2",
        operation="merge",
        targets="[2,3]",
        expected='[{"id":2,"revision":1},{"id":3,"revision":1}]',
        proposal=json.dumps({"content": "Tabs only in tables."}),
        at=20,
    )
    propose(
        path,
        key="k3",
        operation="archive",
        targets="[1]",
        expected='[{"id":1,"revision":1}]',
        proposal="{not json",
        at=30,
    )
    propose(
        path,
        key="k4",
        operation="archive",
        targets="[1]",
        expected="[]",
        proposal="{}",
        project=OTHER_PROJECT,
    )
    store_exec(path, "UPDATE memories SET revision = 2 WHERE id = 3")
    context_db_sync(path=path)
    return path


def test_proposals_are_read_with_stale_and_malformed_named(proposals_store):
    """Each proposal of the project, oldest first; stale when a target's revision moved."""
    connection = sqlite3.connect(proposals_store)
    try:
        found = read_proposals(connection, PROJECT)
        mine = read_proposals(connection, PROJECT, memory_id=1)
    finally:
        connection.close()
    assert [(p.operation, p.target_ids, p.stale_ids, p.malformed) for p in found] == [
        ("update", [1], [], []),
        ("merge", [2, 3], [3], []),
        ("archive", [1], [], ["proposal_json"]),
    ]
    assert found[2].proposal_pretty == "{not json"
    assert [p.operation for p in mine] == ["update", "archive"]


def test_malformed_targets_and_revisions_are_named_never_raised(proposals_store):
    """Unreadable target ids or revisions are named; such a proposal is not called stale."""
    propose(
        proposals_store,
        key="k5",
        operation="update",
        targets='["x"]',
        expected="oops",
        proposal="{}",
        at=40,
    )
    connection = sqlite3.connect(proposals_store)
    try:
        last = read_proposals(connection, PROJECT)[-1]
    finally:
        connection.close()
    assert last.malformed == ["target_ids_json", "expected_revisions_json"]
    assert (last.target_ids, last.stale) == ([], False)


def test_the_project_page_lists_them_read_only(client_as, proposals_store):
    """The project's memory list shows its three proposals, the stale one marked, the
    malformed one as stored; the other project's is not shown and nothing posts them."""
    page = (
        client_as("viewer")
        .get(reverse("memories:list") + f"?project={synced(1).project_id}")
        .content.decode()
    )
    assert "The agent's pending proposals (3)" in page
    assert page.count('<li class="proposal') == 3
    assert page.count('class="proposal proposal-stale"') == 1
    assert "(changed since)" in page
    assert "Malformed in the store (shown as stored): proposal_json" in page
    assert "{not json" in page
    assert "Use the office VPN." in page
    section = page[page.index('class="store-proposals"') : page.index("</section>")]
    assert "<form" not in section and "<button" not in section


def test_a_memory_page_shows_the_proposals_naming_it(client_as, proposals_store):
    """Memory 1's page shows the two proposals naming it; memory 2's the stale merge."""
    client = client_as("viewer")
    first = client.get(reverse("memories:detail", args=[synced(1).pk])).content.decode()
    assert "pending proposals for this memory (2)" in first
    assert "proposal-stale" not in first
    second = client.get(reverse("memories:detail", args=[synced(2).pk])).content.decode()
    assert "pending proposals for this memory (1)" in second
    assert "proposal-stale" in second
    assert f'href="{reverse("memories:detail", args=[synced(3).pk])}"' in second


def test_a_store_without_proposals_shows_nothing(client_as, store):
    """No `memory_tool_proposals` table: the pages show no proposal section."""
    path = store(rows=[make_row()], sessions=[])
    context_db_sync(path=path)
    page = client_as("viewer").get(reverse("memories:detail", args=[synced(1).pk]))
    assert page.status_code == 200
    assert "pending proposals" not in page.content.decode()
    assert store_query(path, "SELECT count(*) FROM memories") == [(1,)]


def queue_page(client, project_pk):
    return client.get(reverse("interop:proposals", args=[project_pk]))


def test_proposed_change_is_the_targets_now_against_the_proposal(proposals_store):
    """An update diffs the target's text now against the proposal's; a merge the joined
    sources'; a malformed one is unreadable, never raised."""
    connection = sqlite3.connect(proposals_store)
    try:
        update, merge, malformed = read_proposals(connection, PROJECT)
    finally:
        connection.close()
    changes = [proposed_change(p) for p in (update, merge)]
    assert [(c.kind, c.before, c.after) for c in changes] == [
        ("text", "Use the VPN.", "Use the office VPN."),
        ("text", "Tabs.\nTabs only.", "Tabs only in tables."),
    ]
    assert proposed_change(malformed).kind == "unreadable"


def test_the_queue_page_shows_each_proposal_with_its_diff_read_only(client_as, proposals_store):
    """The project's queue: writer, session, operation, reason, the word diff; it says why
    nothing can be decided here and offers no form."""
    store_exec(
        proposals_store,
        "UPDATE memory_tool_proposals SET proposal_json = ? WHERE proposal_key = 'k1'",
        (json.dumps({"content": "Use the office VPN.", "reason": "more precise"}),),
    )
    response = queue_page(client_as("curator"), synced(1).project_id)
    assert response.status_code == 200
    page = response.content.decode()
    assert escape(NO_HUMAN_DECISION) in page
    assert "The agent's pending proposals (3)" in page
    assert "<strong>update</strong> by curate" in page
    assert "session <code>ses_cur</code>" in page
    assert "Reason: more precise" in page
    assert "<ins>office </ins>" in page
    assert page.count('class="proposal proposal-stale"') == 1
    section = page[page.index('class="store-proposals"') : page.index("</section>")]
    assert "<form" not in section and "<button" not in section


def test_the_queue_is_for_curators(client_as, proposals_store):
    """A viewer or an editor is refused the queue page; a curator sees it."""
    project = synced(1).project_id
    assert queue_page(client_as("viewer"), project).status_code == 403
    assert queue_page(client_as("editor"), project).status_code == 403


def test_a_proposal_naming_a_gone_memory_is_shown_as_such(client_as, proposals_store):
    """A target deleted from the store since: the proposal is stale, the row named gone."""
    store_exec(proposals_store, "DELETE FROM memories WHERE id = 2")
    page = queue_page(client_as("curator"), synced(1).project_id).content.decode()
    assert "(no longer in the store)" in page
    assert page.count('class="proposal proposal-stale"') == 1


def test_malformed_json_in_every_column_is_shown_never_a_500(client_as, proposals_store):
    """Targets, revisions and proposal unreadable: named, shown as stored, page 200."""
    propose(
        proposals_store,
        key="k9",
        operation="update",
        targets="[1,",
        expected="{",
        proposal="nope",
        at=50,
    )
    response = queue_page(client_as("curator"), synced(1).project_id)
    assert response.status_code == 200
    page = response.content.decode()
    assert (
        "Malformed in the store (shown as stored): target_ids_json, expected_revisions_json, "
        "proposal_json" in page
    )


def test_a_project_another_writer_owns_says_so(client_as, proposals_store):
    """Authority tables name another writer: the queue says none can be applied."""
    store_exec(
        proposals_store,
        "INSERT INTO authority_managed (project_path, since) VALUES (?, 0)",
        (PROJECT,),
    )
    page = queue_page(client_as("curator"), synced(1).project_id).content.decode()
    assert "Another writer owns this project's memory writes" in page
    assert "Rust module" in page


def test_an_unsynced_project_has_no_queue(client_as, make_project):
    """A project not synced from a store: the page says so, no error."""
    project = make_project()
    page = queue_page(client_as("curator"), project.pk).content.decode()
    assert "not synced from a store" in page
