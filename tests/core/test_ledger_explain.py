"""The ledger's explanations: what placed a row at its rank, and why it is in or out."""

from memadmin.core.ledger import assemble
from memadmin.core.ledger.explain import decision, placement
from memadmin.core.ledger.model import EXPIRED, LAZY_DETAIL, OVER_BUDGET, LedgerMemory, LedgerRow
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
    assert placement(memory(2, importance=None), memory(1), "recent") == (
        "no importance: after every memory that has one"
    )
    assert placement(memory(2, importance=None), memory(1, importance=None), "recent") == (
        "no importance: kept in the store's order (category, then latest update)"
    )


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


def _row(*, injected, reason=None, order=None, tokens=40, running_total=None):
    return LedgerRow(
        memory_id=1,
        kind="standalone",
        category="OPS_RULES",
        tokens=tokens,
        running_total=running_total,
        injected=injected,
        reason=reason,
        order=order,
        reachable=injected,
    )


def test_each_decision_is_said_in_its_own_words():
    """Every branch of `decision`, word for word: a row injected without a rank, one fitted,
    one over the budget (and one without a running total, which has no figures to give),
    a lazy detail, and any other reason said as it is."""
    assert decision(_row(injected=True), budget=100) == "injected"
    fitted = _row(injected=True, order=3, running_total=70)
    assert decision(fitted, budget=100) == "fitted: 40 tokens, 30 left after it"
    over = _row(injected=False, reason=OVER_BUDGET, order=4, running_total=90)
    assert decision(over, budget=100) == "needed 40 tokens, 10 left when its turn came"
    unranked = _row(injected=False, reason=OVER_BUDGET)
    assert decision(unranked, budget=100) == "over budget"
    # A running total without the over-budget reason is not an over-budget refusal.
    expired = _row(injected=False, reason=EXPIRED, running_total=90)
    assert decision(expired, budget=100) == "expired"
    lazy = _row(injected=False, reason=LAZY_DETAIL)
    assert decision(lazy, budget=100) == "lazy detail: listed under its header, fetched on demand"
