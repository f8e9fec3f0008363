"""The ledger's explanations: what placed a row at its rank, and why it is in or out."""

from memadmin.core.ledger import assemble
from memadmin.core.ledger.explain import decision, placement
from memadmin.core.ledger.model import LedgerMemory
from memadmin.core.tokens import HeuristicCounter


def memory(id, *, importance=50, status="active", seen=None, verified=None, text="x" * 70):
    return LedgerMemory(id, "OPS_RULES", text, status, importance, None, None, seen, verified, 0)


def test_placement_names_the_rule_that_decided():
    """Status, then importance, then the tie-break, each said in words."""
    assert placement(memory(1), None, "recent") == "first in the selection order"
    assert "permanent memories come before" in placement(
        memory(2), memory(1, status="permanent"), "recent"
    )
    assert placement(memory(2, importance=40), memory(1, importance=80), "recent") == (
        "importance 40, below #1's 80"
    )
    assert "seen or verified less recently" in placement(
        memory(2, seen=100), memory(1, seen=200), "recent"
    )
    assert "never seen or verified" in placement(memory(2), memory(1, seen=5), "recent")
    assert "the lower id goes first, #1 before #2" in placement(memory(2), memory(1), "recent")
    assert "tie-break by id" in placement(memory(2), memory(1), "id")
    assert "no importance" in placement(memory(2, importance=None), memory(1), "recent")


def test_an_excluded_row_says_what_it_needed_and_what_was_left():
    """A memory over the budget states its cost and the room left when it was tried."""
    memories = [memory(n, importance=90 - n, text=f"{n}: " + "word " * 300) for n in range(1, 8)]
    result = assemble(
        memories, [], budget=1000, counter=HeuristicCounter(), mode="plugin", now_ms=0
    )
    out = next(row for row in result.rows if not row.injected)
    left = 1000 - out.running_total
    assert out.tokens > left
    assert (
        decision(out, budget=1000) == f"needed {out.tokens} tokens, {left} left when its turn came"
    )
    first = result.rows[0]
    assert decision(first, budget=1000).startswith(f"fitted: {first.tokens} tokens")
