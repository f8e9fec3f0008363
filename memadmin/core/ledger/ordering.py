"""Which memories may be injected, and in what order they compete for the budget.

Upstream reads the candidates ordered by ``category ASC, updated_at DESC, id ASC`` and then
sorts them with a stable comparator: permanent first; then higher importance, a missing
importance ranking below any value; then the tie-break. Two faithful details:

- Upstream compares importance as ``(right ?? -Infinity) - (left ?? -Infinity)``. When both
  are missing that is ``NaN``, which JavaScript's sort treats as a tie, and the comparator
  returns it before reaching the tie-break: two memories without importance are never
  tie-broken, and the store's order stands between them.
- ``"recent"`` (magic-context 0.46 on) puts the more recent of ``last_seen_at`` and
  ``verified_at`` first, a memory with neither last, then the lower id. ``"id"`` (0.38)
  puts the lower id first.

Python's ``str`` order is code point order, which is SQLite's ``BINARY`` collation over
UTF-8, so the store's ``category ASC`` is reproduced exactly.
"""

from collections.abc import Callable, Iterable

from .model import ARCHIVED, EXPIRED, SUPERSEDED, LedgerMemory, Reason, TieBreak

CANDIDATE_STATUSES = frozenset({"active", "permanent"})

SelectionKey = Callable[[LedgerMemory], tuple]


def ineligible_reason(memory: LedgerMemory, now_ms: int) -> Reason | None:
    """Return why the memory is not a candidate, or None when it is one.

    A memory is a candidate when its status is active or permanent and it has not expired
    (``expires_at`` missing or later than now). Any other status counts as archived, and an
    archived memory that points at its successor as superseded.
    """
    if memory.status not in CANDIDATE_STATUSES:
        return SUPERSEDED if memory.superseded_by is not None else ARCHIVED
    if memory.expires_at is not None and memory.expires_at <= now_ms:
        return EXPIRED
    return None


def store_order(memories: Iterable[LedgerMemory]) -> list[LedgerMemory]:
    """Return the memories in the store's order: category, newest update first, then id."""
    return sorted(memories, key=lambda memory: (memory.category, -memory.updated_at, memory.id))


def _recency(memory: LedgerMemory) -> int | None:
    last_seen, verified = memory.last_seen_at, memory.verified_at
    if last_seen is None:
        return verified
    if verified is None or verified < last_seen:
        return last_seen
    return verified


def selection_key(tie_break: TieBreak) -> SelectionKey:
    """Return the sort key of upstream's selection comparator for the tie-break."""
    if tie_break == "recent":

        def key(memory: LedgerMemory) -> tuple:
            rank = 0 if memory.status == "permanent" else 1
            if memory.importance is None:
                return (rank, 1)
            recency = _recency(memory)
            if recency is None:
                return (rank, 0, -memory.importance, 1, 0, memory.id)
            return (rank, 0, -memory.importance, 0, -recency, memory.id)

    else:

        def key(memory: LedgerMemory) -> tuple:
            rank = 0 if memory.status == "permanent" else 1
            if memory.importance is None:
                return (rank, 1)
            return (rank, 0, -memory.importance, memory.id)

    return key


def selection_order(candidates: Iterable[LedgerMemory], tie_break: TieBreak) -> list[LedgerMemory]:
    """Return the candidates in the order they compete for the budget."""
    return sorted(store_order(candidates), key=selection_key(tie_break))
