"""The prepared store a process keeps per project: reused while nothing moved, renewed after."""

import sqlite3
import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.audit.services import audit_record
from memadmin.audit.store_version import store_version
from memadmin.composites.services import composite_create
from memadmin.core.tokens import HeuristicCounter
from memadmin.interop.writing.services import context_db_sync
from memadmin.ledger.counters import CounterChoice
from memadmin.ledger.inputs import ledger_inputs, memory_rows
from memadmin.ledger.prepared_cache import prepared_for
from memadmin.ledger.selectors import ledger_preview
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.models import Project
from tests.upstream_store import build_store, make_row

from .conftest import NOW

pytestmark = pytest.mark.django_db

HEURISTIC = CounterChoice(HeuristicCounter())


def preview(project, budget=4000, now_ms=NOW):
    """Preview the project as a plugin reading its pack (ops-six) would inject it."""
    return ledger_preview(
        project, budget=budget, counter=HEURISTIC, now_ms=now_ms, modes=("pack", "headers")
    )


def block(project, **options) -> str:
    return preview(project, **options).results["pack"].rendered


def test_every_recorded_write_moves_the_store_version(project):
    """audit_record moves the version on, in the write's transaction."""
    before = store_version()
    memory_create(project=project, category="OPS_RULES", content="One.", actor="agent")
    after = store_version()
    audit_record(action="noted", target=project, actor="agent", project=project)
    assert before < after < store_version()


def test_a_page_shown_again_or_at_another_budget_reads_one_row(project, sop):
    """With nothing written, the prepared store is reused: one query, the selection rerun."""
    first = prepared_for(project, now_ms=NOW)
    preview(project)
    with CaptureQueriesContext(connection) as again:
        moved = preview(project, budget=900)
    assert len(again) == 1
    assert prepared_for(project, now_ms=NOW) is first
    assert moved.results["pack"].budget == 900


def test_an_edit_is_seen_at_once_and_only_the_changed_memory_is_read(project, sop):
    """After an edit, the next preview shows the new text, reading that memory alone."""
    preview(project)
    memory_update(memory=sop["standalone"], actor="agent", content="Deploys happen on Mondays.")
    with CaptureQueriesContext(connection) as after:
        text = block(project)
    assert "Deploys happen on Mondays." in text and "weekdays" not in text
    reads = [q["sql"] for q in after.captured_queries if "memories_memory" in q["sql"]]
    assert len(reads) == 1 and " IN (" in reads[0]


def test_a_new_memory_and_a_new_composite_are_seen(project, sop):
    """A memory made and a composite formed after the first preview are in the next one."""
    preview(project)
    made = memory_create(
        project=project, category="OPS_RULES", content="Freeze on Fridays.", actor="agent"
    )
    assert "Freeze on Fridays." in block(project)
    composite_create(head=made, type="theme", members=[sop["standalone"]], actor="agent")
    headers = preview(project).results["headers"]
    standalone = next(row for row in headers.rows if row.memory_id == sop["standalone"].pk)
    assert not standalone.injected


def test_a_write_in_another_project_keeps_this_one_prepared(project, sop, make_project):
    """Another project's write moves the version, yet this project is not read again."""
    first = prepared_for(project, now_ms=NOW)
    other = make_project("ops-six")
    memory_create(project=other, category="OPS_RULES", content="Elsewhere.", actor="agent")
    assert prepared_for(project, now_ms=NOW).inputs is first.inputs


def test_an_expiry_reached_renews_the_candidates(project, remember):
    """A memory expiring later is a candidate now and not once its moment has passed."""
    brief = remember("Short-lived fact.")
    Memory.objects.filter(pk=brief.pk).update(expires_at=NOW + 60_000)  # as a sync writes it
    assert "Short-lived fact." in block(project, now_ms=NOW)
    assert "Short-lived fact." not in block(project, now_ms=NOW + 120_000)


def test_a_sync_is_seen(tmp_path):
    """A sync's writes (rows written in bulk, one audit event) renew the prepared store."""
    path = build_store(tmp_path / "context.db", rows=[make_row(content="Synced first.")])
    context_db_sync(path=path)
    project = Project.objects.get()
    assert "Synced first." in block(project, now_ms=make_row()["updated_at"] + 1)
    row = make_row(content="Synced second.")
    with sqlite3.connect(path) as store:
        columns = [name for (_, name, *_) in store.execute("PRAGMA table_info(memories)")]
        kept = {key: value for key, value in row.items() if key in columns}
        marks = ", ".join("?" for _ in kept)
        store.execute(
            f"INSERT INTO memories ({', '.join(kept)}) VALUES ({marks})", list(kept.values())
        )
    store.close()
    context_db_sync(path=path)
    assert Memory.objects.filter(project=project).count() == 2
    assert "Synced second." in block(project, now_ms=make_row()["updated_at"] + 1)


def test_after_edits_the_kept_inputs_are_those_read_afresh(project, sop, remember):
    """Edits patched in (and a memory made) leave the same inputs as reading it all again."""
    prepared_for(project, now_ms=NOW)
    memory_update(memory=sop["steps"][1], actor="agent", content="Step 2: do it twice.")
    patched = prepared_for(project, now_ms=NOW)
    assert sorted(patched.inputs.memories) == sorted(ledger_inputs(project).memories)
    remember("A new one.")
    memory_update(memory=sop["header"], actor="agent", importance=10)
    again = prepared_for(project, now_ms=NOW)
    assert sorted(again.inputs.memories) == sorted(ledger_inputs(project).memories)
    assert again.inputs.composites == ledger_inputs(project).composites


def test_after_edits_the_patched_previews_are_those_prepared_afresh(project, sop):
    """Each mode's store patched after an edit assembles exactly as one prepared anew."""
    from memadmin.ledger.prepared_cache import prepared_projects

    edits = [
        (sop["steps"][1], {"content": "Step 2: <do> it & twice."}),
        (sop["header"], {"importance": 10}),
        (sop["steps"][0], {"status": "archived"}),
    ]
    preview(project, budget=500)
    for memory, change in edits:
        memory_update(memory=memory, actor="agent", **change)
        patched = [preview(project, budget=budget) for budget in (500, 4000)]
        prepared_projects.clear()
        fresh = [preview(project, budget=budget) for budget in (500, 4000)]
        for one, other in zip(patched, fresh, strict=True):
            assert one.results == other.results


def test_rows_keep_repeated_words_once_and_an_edited_entry_keeps_true_positions(project, sop):
    """Four OPS_RULES memories, one category string; after an edit the positions still hold."""
    entry = prepared_for(project, now_ms=NOW)
    words = [row[2] for row in entry.rows().values() if row[2] == "OPS_RULES"]
    assert len(words) == 4
    assert len({id(word) for word in words}) == 1
    assert list(entry.rows().items()) == [(row[0], row) for row in memory_rows(project)]
    memory_update(memory=sop["steps"][1], actor="agent", importance=12)
    again = prepared_for(project, now_ms=NOW)
    assert again is not entry
    assert again.positions == {pk: at for at, pk in enumerate(again.rows())}
    assert again.rows() == {row[0]: row for row in memory_rows(project)}
    at = again.positions[sop["steps"][1].pk]
    assert again.inputs.memories[at].importance == 12


class DoubledCounter:
    """Another counter (its own label): twice the heuristic's count."""

    name = "doubled"

    def count(self, text: str) -> int:
        return 2 * HeuristicCounter().count(text)


def test_costed_lines_are_let_go_and_another_counter_assembles_as_afresh(project, sop):
    """After a preview the stores keep no memory's line and the process no text; a second
    counter renders the lines again and assembles as a fresh process does."""
    from memadmin.ledger.count_cache import remembered
    from memadmin.ledger.prepared_cache import prepared_projects

    preview(project)
    entry = prepared_for(project, now_ms=NOW)
    (reads, _workspace), *_ = entry.reads.values()
    assert all(not read.store._lines for read in reads.values())
    assert remembered("heuristic") and not any(
        isinstance(key, str) for key in remembered("heuristic")
    )
    doubled = CounterChoice(DoubledCounter())
    options = {"budget": 900, "now_ms": NOW, "modes": ("pack", "headers")}
    again = ledger_preview(project, counter=doubled, **options)
    prepared_projects.clear()
    fresh = ledger_preview(project, counter=doubled, **options)
    assert again.results == fresh.results
    assert again.results["pack"].used_tokens > 0


def test_rows_made_again_keep_upstream_ids_and_supersessions(tmp_path):
    """A synced store (upstream ids, a memory superseded): the rows an entry makes again
    from its memories are the rows read, before and after an edit patched in."""
    rows = [
        make_row(id=7, content="Superseded.", superseded_by_memory_id=9, status="archived"),
        make_row(id=9, content="Superseding."),
        make_row(id=12, content="Plain."),
    ]
    context_db_sync(path=build_store(tmp_path / "context.db", rows=rows))
    project = Project.objects.get()
    now = make_row()["updated_at"] + 1
    entry = prepared_for(project, now_ms=now)
    read = {row[0]: row for row in memory_rows(project)}
    assert any(row[1] is not None for row in read.values())
    assert any(row[7] is not None for row in read.values())
    assert list(entry.rows().items()) == list(read.items())
    plain = Memory.objects.get(project=project, upstream_id=12)
    memory_update(memory=plain, actor="agent", importance=11)
    again = prepared_for(project, now_ms=now)
    assert again is not entry and again.rows() == {row[0]: row for row in memory_rows(project)}
    assert sorted(again.inputs.memories) == sorted(ledger_inputs(project).memories)


@pytest.mark.django_db(transaction=True)
def test_a_second_request_assembles_a_kept_project_only_after_the_first(project, sop):
    """The server's request threads share a kept project: while one assembles it (its counter
    keeping unsaved counts, its results being kept), another waits, then gets its own budget.
    Two at once made a save iterate the counts another assembly was adding to: a 500."""
    preview(project)
    entry = prepared_for(project, now_ms=NOW)
    budgets = []

    def other_request():
        try:
            budgets.append(preview(project, budget=900).results["pack"].budget)
        finally:
            connection.close()

    with entry.lock:
        other = threading.Thread(target=other_request)
        other.start()
        other.join(timeout=0.5)
        assert other.is_alive() and not budgets
    other.join(timeout=30)
    assert budgets == [900]
