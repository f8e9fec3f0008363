"""Whether one memory is injected at its project's budget, and why: for the memory page."""

from dataclasses import dataclass

from memadmin.core.clock import now_ms
from memadmin.core.ledger import explain
from memadmin.memories.models import Memory

from .counters import choose_counter
from .selectors import ledger_preview

# The injection judged is a plugin's that reads the project's pack (for a magic-context pack,
# the stock plugin's); a row the stock plugin's reader drops is named beside it.
MODE = "pack"
STOCK = "plugin"


@dataclass(frozen=True)
class MemoryInjection:
    """One memory's fate in its project's injection."""

    budget: int
    mode: str
    display_id: int
    injected: bool
    rank: int | None
    why: str
    placed: str
    counter: str
    stock_dropped: str = ""


def memory_injection(memory: Memory) -> MemoryInjection | None:
    """Return the memory's row of its project's pack-mode ledger at the project's budget.

    `stock_dropped` says why the stock plugin never injects it, when its reader drops it.
    """
    project = memory.project
    preview = ledger_preview(
        project,
        budget=project.injection_budget,
        counter=choose_counter(),
        now_ms=now_ms(),
        modes=(MODE, STOCK),
    )
    if preview.is_empty:
        return None
    shown = {pk: display for display, pk in preview.inputs.pk_of.items()}.get(memory.pk)
    result = preview.results[MODE]
    position = next((i for i, row in enumerate(result.rows) if row.memory_id == shown), None)
    if position is None:
        return None
    row = result.rows[position]
    by_id = preview.inputs.by_id
    placed = ""
    if row.order is not None:
        previous = by_id[result.rows[row.order - 2].memory_id] if row.order > 1 else None
        placed = explain.placement(by_id[row.memory_id], previous, "recent")
    return MemoryInjection(
        budget=result.budget,
        mode=MODE,
        display_id=row.memory_id,
        injected=row.injected,
        rank=row.order,
        why=explain.decision(row, budget=result.budget),
        placed=placed,
        counter=preview.counter.name,
        stock_dropped=next(
            (d.reason for d in preview.results[STOCK].dropped if d.memory_id == shown), ""
        ),
    )
