"""Applying the structure assistant's suggestions: one audited change through the services,
refused whole when a page is stale or a header is bad, undone whole, written through to a
synced store like any other edit."""

import sqlite3

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create
from memadmin.core.tokens import HeuristicCounter
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.overview.undo_services import change_undo
from memadmin.projects.models import Project
from memadmin.structure import apply_services
from memadmin.structure.apply_services import APPLIED, structure_apply
from memadmin.structure.suggestions import structure_plan
from tests.interop.conftest import PROJECT
from tests.meanwhile import Meanwhile
from tests.upstream_store import make_row

COUNTER = HeuristicCounter()
SERVICES = ["api-gateway", "audit-writer", "billing-worker", "backup-runner"]
SOP = """# Failover of the primary database
1. Page the database on-call and announce the failover in #ops.
2. Freeze deploys for every service that writes to the primary.
3. Promote the replica in the DR region with `pg_ctl promote`.
4. Point the connection pooler at the new primary and reload it."""


def timeout_text(service: str, week: int) -> str:
    return (
        f"{service} request timeout: {10 + week} s, chosen to stay under the gateway's limit "
        f"after the {service} incident review of week {week}"
    )


@pytest.fixture
def store(project):
    for week in range(3):
        for service in SERVICES:
            memory_create(
                project=project,
                category="CONFIG_VALUES",
                content=timeout_text(service, week),
                actor="system",
            )
    memory_create(project=project, category="OPS_RULES", content=SOP, actor="system")
    return project


def plan(project):
    return structure_plan(project, counter=COUNTER, budgets=(1500,), now_ms=2_000_000_000_000)


def live(project) -> set[str]:
    return set(
        Memory.objects.filter(project=project, status="active").values_list("content", flat=True)
    )


def test_applying_all_fragments_groups_and_audits_one_change(store, people):
    suggestions = plan(store).suggestions
    before = live(store)
    applied = structure_apply(
        project=store,
        keys=[s.key for s in suggestions],
        actor=people["curator"],
        counter=COUNTER,
        reason="Table of contents for the timeouts",
    )
    assert applied.summary() == "Applied 2 suggestions: 1 fragmented, 1 family grouped."
    sop = Memory.objects.get(project=store, content=SOP)
    assert sop.status == "archived" and sop.superseded_by == applied.headers[0]
    assert applied.composites[0].type == "sequence"
    (family,) = applied.composites[1:]
    members = [m.member.content for m in family.members.order_by("position")]
    assert len(members) == 12 and all(" request timeout: " in m for m in members)
    assert family.type == "theme" and family.head.category == "CONFIG_VALUES"
    assert family.head.content.startswith("… request timeout: … s, chosen to stay under")
    assert "(12 memories): api-gateway, 10, 0;" in family.head.content
    # Every original line is still live: the SOP's in its header and details.
    after = live(store)
    assert before - {SOP} <= after
    assert all(any(line.strip() in text for text in after) for line in SOP.splitlines()[1:])
    # One change, by the curator, with the reason given, and its own summary event.
    events = AuditEvent.objects.filter(change_id=applied.change_id)
    assert {e.actor_label for e in events} == {people["curator"].username}
    assert events.filter(action=APPLIED).count() == 1
    assert set(events.values_list("reason", flat=True)) == {"Table of contents for the timeouts"}
    # Applied suggestions are not suggested again.
    assert plan(store).suggestions == []


def test_undo_takes_the_whole_change_back(store, people):
    before = live(store)
    applied = structure_apply(
        project=store,
        keys=[s.key for s in plan(store).suggestions],
        actor=people["curator"],
        counter=COUNTER,
    )
    undone = change_undo(change_id=applied.change_id, actor=people["curator"])
    assert live(store) == before
    assert not Composite.objects.filter(pk__in=[c.pk for c in applied.composites]).exists()
    assert undone.summary().startswith("Undone: 1 memory restored, ")
    assert "composites it made deleted" in undone.summary()
    with pytest.raises(ValidationError, match="undone already"):
        change_undo(change_id=applied.change_id, actor=people["curator"])


def test_a_stale_page_is_refused_and_nothing_written(store, people):
    suggestions = plan(store).suggestions
    member = Memory.objects.get(pk=plan(store).pk_of[suggestions[-1].member_ids[0]])
    memory_update(memory=member, actor="system", content=member.content + " Reviewed again.")
    events = AuditEvent.objects.count()
    with pytest.raises(ValidationError, match="changed since the page was shown"):
        structure_apply(
            project=store,
            keys=[s.key for s in suggestions],
            actor=people["curator"],
            counter=COUNTER,
        )
    assert AuditEvent.objects.count() == events
    assert not Composite.objects.filter(project=store).exists()


@pytest.mark.parametrize(
    ("header", "message"),
    [("   ", "is empty"), ("word " * 200, "over the limit of 60")],
)
def test_a_bad_edited_header_is_refused(store, people, header, message):
    suggestion = plan(store).suggestions[-1]
    with pytest.raises(ValidationError, match=message):
        structure_apply(
            project=store,
            keys=[suggestion.key],
            headers={suggestion.key: header},
            actor=people["curator"],
            counter=COUNTER,
        )
    assert not Composite.objects.filter(project=store).exists()


def test_an_edited_header_is_the_one_written(store, people):
    suggestion = plan(store).suggestions[-1]
    applied = structure_apply(
        project=store,
        keys=[suggestion.key],
        headers={suggestion.key: "Timeouts of the backup runner, one per review"},
        actor=people["curator"],
        counter=COUNTER,
    )
    assert applied.headers[0].content == "Timeouts of the backup runner, one per review"


def test_nothing_chosen_is_refused(store, people):
    with pytest.raises(ValidationError, match="Choose at least one"):
        structure_apply(project=store, keys=[], actor=people["curator"], counter=COUNTER)


def test_applied_to_a_synced_store_the_headers_reach_it(tmp_path, people):
    rows = [
        make_row(content=timeout_text(service, week), category="CONFIG_VALUES")
        for week in range(3)
        for service in SERVICES[:2]
    ]
    from tests.upstream_store import build_store

    path = build_store(tmp_path / "context.db", rows=rows, sessions=[])
    context_db_sync(path=path)
    project = Project.objects.get(identity=PROJECT)
    applied = structure_apply(
        project=project,
        keys=[s.key for s in plan(project).suggestions],
        actor=people["curator"],
        counter=COUNTER,
    )
    assert len(applied.headers) == 1
    with sqlite3.connect(path) as connection:
        contents = {row[0] for row in connection.execute("SELECT content FROM memories")}
    assert {header.content for header in applied.headers} <= contents


def test_a_second_round_gathers_category_headers_under_a_theme(project, people):
    for n, service in enumerate(SERVICES[:3]):
        memory_create(
            project=project,
            category="CONFIG_VALUES",
            content=f"{service} backup snapshots are kept {30 + n} days for the restore drill",
            actor="system",
        )
        memory_create(
            project=project,
            category="OPS_RULES",
            content=f"Run the {service} restore drill from the latest backup snapshot every month",
            actor="system",
        )
    first = structure_apply(
        project=project,
        keys=[s.key for s in plan(project).suggestions],
        actor=people["curator"],
        counter=COUNTER,
    )
    assert len(first.headers) == 2
    (theme,) = plan(project).suggestions
    assert theme.kind == "theme"
    second = structure_apply(
        project=project, keys=[theme.key], actor=people["curator"], counter=COUNTER
    )
    assert second.summary() == "Applied 1 suggestion: 1 theme over headers."
    (composite,) = second.composites
    assert {m.member_id for m in composite.members.all()} == {h.pk for h in first.headers}
    # Never deeper: nothing is left to suggest over the theme.
    assert plan(project).suggestions == []


def test_a_shown_suggestion_whose_memory_was_grouped_since_is_refused(store, people):
    shown = plan(store)
    family = next(s for s in shown.suggestions if s.kind == "family")
    member = Memory.objects.get(pk=shown.pk_of[family.member_ids[0]])
    other = Memory.objects.get(project=store, content=SOP)
    composite_create(head=other, type="theme", members=[member], actor="agent")
    events = AuditEvent.objects.count()
    with pytest.raises(ValidationError, match="changed since the page was shown"):
        structure_apply(
            project=store,
            keys=[family.key],
            actor=people["curator"],
            counter=COUNTER,
            shown=shown.suggestions,
            pk_of=shown.pk_of,
        )
    assert AuditEvent.objects.count() == events


@pytest.mark.django_db(transaction=True)
def test_a_text_saved_once_the_shown_suggestion_is_checked_waits_for_it(store, people, monkeypatch):
    """The fragments are the texts the page showed: a save coming after the check waits.

    On PostgreSQL the save went through between the check and the split, and the new text was
    split at the boundaries of the one shown.
    """
    shown = plan(store)
    sop = next(s for s in shown.suggestions if s.source_id is not None)
    source = Memory.objects.get(pk=shown.pk_of[sop.source_id])
    edited = "Run the failover drill first. " + source.content
    saver = Meanwhile(lambda: memory_update(memory=source, actor="system", content=edited))
    check = apply_services._changed

    def then_a_save(*args):
        changed = check(*args)
        saver.start()
        return changed

    monkeypatch.setattr(apply_services, "_changed", then_a_save)
    applied = structure_apply(
        project=store,
        keys=[sop.key],
        actor=people["curator"],
        counter=COUNTER,
        shown=shown.suggestions,
        pk_of=shown.pk_of,
    )
    saved = saver.outcome()
    assert isinstance(saved, (Memory, ValidationError)), f"the save failed: {saved!r}"
    composite = applied.composites[0]
    details = [row.member.content for row in composite.members.order_by("position")]
    assert details == [detail.text for detail in sop.details]
