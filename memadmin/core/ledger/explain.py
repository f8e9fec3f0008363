"""Why a memory stands where it does in the ledger: plain sentences from plain data.

Nothing here changes an assembly; it reads the rows an assembly made and the memories it
took in, and says, in the words the page and the commands use:

- ``placement``: what put a competitor at its rank, compared with the one just before it
  (permanent before active, higher importance first, then the tie-break);
- ``decision``: why a row is in or out, an excluded competitor saying how many tokens it
  needed and how many were left when its turn came.
"""

from .model import LAZY_DETAIL, OVER_BUDGET, LedgerMemory, LedgerRow, TieBreak
from .ordering import recency


def placement(memory: LedgerMemory, previous: LedgerMemory | None, tie_break: TieBreak) -> str:
    """Return what placed `memory` right after `previous` in the selection order."""
    if previous is None:
        return "first in the selection order"
    if memory.status != previous.status:
        return f"first {memory.status} memory: permanent memories come before active ones"
    if memory.importance is None:
        if previous.importance is not None:
            return "no importance: after every memory that has one"
        return "no importance: kept in the store's order (category, then latest update)"
    if memory.importance != previous.importance:
        return f"importance {memory.importance}, below #{previous.id}'s {previous.importance}"
    same = f"same importance as #{previous.id} ({memory.importance}); "
    if tie_break == "id":
        return same + f"tie-break by id: #{memory.id} after #{previous.id}"
    mine, theirs = recency(memory), recency(previous)
    if mine != theirs:
        if mine is None:
            return same + "tie-break by recency: never seen or verified, so after it"
        return same + "tie-break by recency: seen or verified less recently"
    return same + f"same recency too: the lower id goes first, #{previous.id} before #{memory.id}"


def decision(row: LedgerRow, *, budget: int) -> str:
    """Return why the row is in or out, with the figures behind an over-budget refusal."""
    if row.injected:
        if row.order is None:
            return "injected"
        return f"fitted: {row.tokens} tokens, {budget - row.running_total} left after it"
    if row.reason == OVER_BUDGET and row.running_total is not None:
        left = budget - row.running_total
        return f"needed {row.tokens} tokens, {left} left when its turn came"
    if row.reason == LAZY_DETAIL:
        return "lazy detail: listed under its header, fetched on demand"
    return str(row.reason)
