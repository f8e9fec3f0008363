"""The ledger's reads: a project's memories and composites in the ledger's terms."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.core.ledger import LedgerError, assemble, assemble_read, read_for_mode
from memadmin.core.process_cache import reset_process_caches
from memadmin.core.tokens import ClaudeCounter, CounterUnavailable, HeuristicCounter
from memadmin.ledger.counters import CounterChoice
from memadmin.ledger.inputs import display_ids, ledger_inputs
from memadmin.ledger.models import TokenCount
from memadmin.ledger.selectors import ledger_preview
from memadmin.memories.models import Memory

from .conftest import NOW

pytestmark = pytest.mark.django_db

HEURISTIC = CounterChoice(HeuristicCounter())


def test_display_ids_prefer_upstream_ids():
    """A synced memory shows its upstream id, a memory made here its own."""
    display, renumbered = display_ids([(1, 40), (2, None), (3, 41)])
    assert display == {1: 40, 2: 2, 3: 41}
    assert renumbered == {}


def test_a_local_id_taken_by_an_upstream_id_moves_above_every_id():
    """A memory made here whose pk is a synced memory's upstream id takes the next free id."""
    display, renumbered = display_ids([(1, 7), (7, None), (8, None)])
    assert display == {1: 7, 7: 9, 8: 8}
    assert renumbered == {7: 9}


def test_inputs_carry_upstream_ids_and_composites_in_display_ids(project, sop):
    """Memories, heads and members all use the id the agent sees."""
    header, steps = sop["header"], sop["steps"]
    Memory.objects.filter(pk=header.pk).update(upstream_id=500)
    inputs = ledger_inputs(project)
    assert {m.id for m in inputs.memories} == {500, *(s.pk for s in steps), sop["standalone"].pk}
    (composite,) = inputs.composites
    assert composite.head_id == 500
    assert composite.member_ids == tuple(step.pk for step in steps)
    assert inputs.pk_of[500] == header.pk


def test_inputs_are_read_in_three_queries_whatever_the_size(project, sop, remember):
    """Adding memories and composites does not add queries."""
    with CaptureQueriesContext(connection) as small:
        ledger_inputs(project)
    for n in range(20):
        remember(f"Another rule number {n}.")
    with CaptureQueriesContext(connection) as large:
        ledger_inputs(project)
    assert len(small) == len(large) == 3


def test_preview_assembles_each_mode_like_the_core(project, sop):
    """The preview is the core's reading and assembly of the same inputs, in every mode."""
    modes = ("plugin", "headers", "pack")
    preview = ledger_preview(project, budget=4000, counter=HEURISTIC, now_ms=NOW, modes=modes)
    inputs = ledger_inputs(project)
    direct = assemble(
        inputs.memories,
        inputs.composites,
        budget=4000,
        counter=HeuristicCounter(),
        mode="headers",
        now_ms=NOW,
    )
    assert preview.results["headers"].rendered == direct.rendered
    assert preview.results["headers"].rows == direct.rows
    assert "(details: " in preview.results["headers"].rendered
    for mode in ("plugin", "pack"):
        read = read_for_mode(
            inputs.memories,
            inputs.composites,
            mode=mode,
            now_ms=NOW,
            pack_categories=[c.name for c in project.categories.order_by("priority")],
        )
        core = assemble_read(read, budget=4000, counter=HeuristicCounter())
        assert preview.results[mode].rendered == core.rendered
        assert preview.results[mode].rows == core.rows
        assert preview.results[mode].dropped == core.dropped
    assert preview.results["plugin"].rendered == ""
    assert len(preview.results["plugin"].dropped) == 5
    assert preview.results["pack"].coverage.injected == 5


def test_an_empty_project_gives_an_empty_preview_and_writes_nothing(project):
    """A project with no memories assembles nothing and caches nothing."""
    preview = ledger_preview(project, budget=4000, counter=HEURISTIC, now_ms=NOW)
    assert preview.is_empty and preview.results == {}
    assert not TokenCount.objects.exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"budget": 499}, "between 500 and 20000"),
        ({"budget": 20001}, "between 500 and 20000"),
        ({"budget": 4000, "modes": ("both",)}, "Unknown mode"),
        ({"budget": 4000, "tie_break": "oldest"}, "Unknown tie-break"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(project, sop, arguments, message):
    """A budget out of range or an unknown mode is refused and no count is cached."""
    with pytest.raises(LedgerError, match=message):
        ledger_preview(project, counter=HEURISTIC, now_ms=NOW, **arguments)
    assert not TokenCount.objects.exists()


def test_the_claude_counter_gives_the_same_preview_through_the_cache(project, sop):
    """Cached claude counts are the counts ClaudeCounter gives, cold and warm."""
    try:
        claude = ClaudeCounter()
    except CounterUnavailable:
        pytest.skip("the claude counter is not set up here")
    inputs = ledger_inputs(project)
    direct = assemble_read(
        read_for_mode(inputs.memories, inputs.composites, mode="plugin", now_ms=NOW),
        budget=600,
        counter=claude,
    )
    for _ in ("cold", "warm"):
        reset_process_caches()
        preview = ledger_preview(project, budget=600, counter=CounterChoice(claude), now_ms=NOW)
        assert preview.results["plugin"].rows == direct.rows
        assert preview.results["plugin"].counter_name == "claude"
