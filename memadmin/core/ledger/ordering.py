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

from collections.abc import Iterable
from operator import attrgetter, itemgetter

import numpy as np

from .model import ARCHIVED, EXPIRED, SUPERSEDED, LedgerMemory, Reason, TieBreak

CANDIDATE_STATUSES = frozenset({"active", "permanent"})


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


def partition(
    memories: list[LedgerMemory], now_ms: int
) -> tuple[list[LedgerMemory], list[LedgerMemory]]:
    """Return the candidates and the other memories, each in the order given."""
    candidates = [
        memory
        for memory in memories
        if memory.status in CANDIDATE_STATUSES
        and (memory.expires_at is None or memory.expires_at > now_ms)
    ]
    if len(candidates) == len(memories):
        return candidates, []
    # The others: what ``ineligible_reason`` gives a reason for, tested inline.
    return candidates, [
        memory
        for memory in memories
        if memory.status not in CANDIDATE_STATUSES
        or (memory.expires_at is not None and memory.expires_at <= now_ms)
    ]


def store_order(memories: Iterable[LedgerMemory]) -> list[LedgerMemory]:
    """Return the memories in the store's order: category, newest update first, then id."""
    memories = list(memories)
    if len(memories) < 2:
        return memories
    category_rank = {
        category: rank for rank, category in enumerate(sorted({m.category for m in memories}))
    }
    newest = max(memory.updated_at for memory in memories)
    low_id = min(memory.id for memory in memories)
    id_bits = (max(memory.id for memory in memories) - low_id).bit_length()
    update_bits = (newest - min(memory.updated_at for memory in memories)).bit_length()
    category_shift = update_bits + id_bits
    return _by_key(
        memories,
        [
            (category_rank[memory.category] << category_shift)
            | ((newest - memory.updated_at) << id_bits)
            | (memory.id - low_id)
            for memory in memories
        ],
    )


def _by_key(memories: list[LedgerMemory], keys: list[int]) -> list[LedgerMemory]:
    """Return the memories sorted by their unique integer keys.

    A key packs the sort fields from the most significant down, each offset by its minimum
    and given just enough bits, so plain integer comparison gives the tuple order exactly:
    comparing integers keeps 100,000 candidates well within the time budget; tuples would not.
    """
    return [memories[index] for index in sorted(range(len(keys)), key=keys.__getitem__)]


def recency(memory: LedgerMemory) -> int | None:
    """Return what the "recent" tie-break compares: the later of last seen and verified.

    None when both are missing. ``_ranked`` computes the same inline, for speed.
    """
    if memory.verified_at is None:
        return memory.last_seen_at
    if memory.last_seen_at is not None and memory.last_seen_at > memory.verified_at:
        return memory.last_seen_at
    return memory.verified_at


def _ranked(memories: list[LedgerMemory], tie_break: TieBreak) -> list[LedgerMemory]:
    """Return memories that all have an importance, by importance then the tie-break.

    Each memory gets one integer key (see ``_by_key``).
    """
    if not memories:
        return []
    top_importance = max(memory.importance for memory in memories)
    low_id = min(memory.id for memory in memories)
    id_bits = (max(memory.id for memory in memories) - low_id).bit_length()
    if tie_break == "id":
        return sorted(
            memories,
            key=lambda memory: (
                ((top_importance - memory.importance) << id_bits) | (memory.id - low_id)
            ),
        )
    # The more recent of last_seen_at and verified_at, None when both are missing.
    recencies = [
        memory.last_seen_at
        if memory.verified_at is None
        or (memory.last_seen_at is not None and memory.last_seen_at > memory.verified_at)
        else memory.verified_at
        for memory in memories
    ]
    known = [recency for recency in recencies if recency is not None]
    newest = max(known, default=0)
    recency_bits = (newest - min(known, default=0)).bit_length()
    missing = 1 << (recency_bits + id_bits)
    importance_shift = recency_bits + id_bits + 1
    return _by_key(
        memories,
        [
            ((top_importance - memory.importance) << importance_shift)
            | (missing if recency is None else (newest - recency) << id_bits)
            | (memory.id - low_id)
            for memory, recency in zip(memories, recencies, strict=True)
        ],
    )


def selection_order(candidates: Iterable[LedgerMemory], tie_break: TieBreak) -> list[LedgerMemory]:
    """Return the candidates in the order they compete for the budget.

    Permanent memories come first, active ones after; within each, the memories with an
    importance by importance and tie-break, then those without one in the store's order.
    The keys are sorted as arrays (``_sorted_by_arrays``) when every number is exact in
    a float64; otherwise each group is sorted by packed integers (``_by_key``).
    """
    candidates = list(candidates)
    order = _sorted_by_arrays(candidates, tie_break)
    if order is not None:
        return order
    groups: tuple[list[LedgerMemory], ...] = ([], [], [], [])
    for memory in candidates:
        active = memory.status != "permanent"
        groups[2 * active + (memory.importance is None)].append(memory)
    permanent, permanent_unranked, active, active_unranked = groups
    return [
        *_ranked(permanent, tie_break),
        *store_order(permanent_unranked),
        *_ranked(active, tie_break),
        *store_order(active_unranked),
    ]


EXACT_LIMIT = 1 << 53  # a float64 holds every whole number below this exactly

_fields = {name: attrgetter(name) for name in LedgerMemory._fields}


def _column(memories: list[LedgerMemory], name: str, *, optional: bool = True) -> np.ndarray:
    """Return one field of every memory as float64, a missing value as NaN.

    A field that is never missing (not ``optional``) is read straight into the array;
    a missing value there raises TypeError.
    """
    values = map(_fields[name], memories)
    if optional:
        return np.array(list(values), dtype=np.float64)
    return np.fromiter(values, dtype=np.float64, count=len(memories))


def _sorted_by_arrays(memories: list[LedgerMemory], tie_break: TieBreak) -> list | None:
    """Return ``selection_order``'s order, sorting all the keys at once with ``np.lexsort``.

    Each memory gets the same key as ``selection_key``, as five columns: its group, then
    minus its importance (its category's rank when it has none), then whether its recency
    is missing, minus its recency (minus its update time when it has no importance), then
    its id. Return None when a number is not a whole number below 2**53 in magnitude (a
    float64 would round it), or is not a number at all: those stores are sorted exactly,
    group by group.
    """
    if len(memories) < 2:
        return memories
    try:
        importance = _column(memories, "importance")
        ids = _column(memories, "id", optional=False)
        updated = _column(memories, "updated_at", optional=False)
        recency = (
            np.fmax(_column(memories, "last_seen_at"), _column(memories, "verified_at"))
            if tie_break == "recent"
            else np.zeros(len(memories))
        )
    except (TypeError, ValueError, OverflowError):
        return None
    if np.isnan(ids).any() or np.isnan(updated).any():  # a NaN given as such
        return None
    for column in (importance, ids, updated, recency):
        known = column[~np.isnan(column)]
        if known.size and (np.abs(known).max() >= EXACT_LIMIT or (known != np.trunc(known)).any()):
            return None
    categories = list(map(_fields["category"], memories))
    rank = {category: at for at, category in enumerate(sorted(set(categories)))}
    unranked = np.isnan(importance)
    active = np.fromiter(map("permanent".__ne__, map(_fields["status"], memories)), dtype=bool)
    group = 2 * active + unranked
    category_rank = np.array(list(map(rank.__getitem__, categories)), dtype=np.float64)
    missing = np.isnan(recency)
    second = np.where(unranked, category_rank, -importance)
    third = np.where(unranked, False, missing)
    fourth = np.where(unranked, -updated, np.where(missing, 0.0, -recency))
    order = _lexsorted([group, second, third, fourth, ids])
    return list(itemgetter(*order.tolist())(memories))


def _lexsorted(columns: list[np.ndarray]) -> np.ndarray:
    """Return the positions that sort by the columns, the first the most significant.

    Every value is a whole number below 2**53 in magnitude. Neighbouring columns are packed
    into one (offset by their minimum, times the next one's span) while the product of
    their spans stays below 2**53, so the float64 is exact and fewer keys are sorted.
    """
    keys: list[np.ndarray] = []
    packed, span = None, 1.0
    for column in columns:
        column = column.astype(np.float64, copy=False)
        low = column.min()
        width = float(column.max() - low) + 1
        if width >= EXACT_LIMIT:  # its offsets would not all be exact: sorted as it is
            keys.extend([key for key in (packed, column) if key is not None])
            packed, span = None, 1.0
        elif packed is not None and span * width < EXACT_LIMIT:
            packed, span = packed * width + (column - low), span * width
        else:
            if packed is not None:
                keys.append(packed)
            packed, span = column - low, width
    if packed is not None:
        keys.append(packed)
    return np.lexsort(keys[::-1])


def selection_key(memory: LedgerMemory, tie_break: TieBreak) -> tuple:
    """Return a key that sorts candidates exactly as ``selection_order`` orders them.

    The group first (permanent ranked, permanent unranked, active ranked, active unranked),
    then what orders each group. Slower than the packed integers for a whole store; used to
    move one memory within an order already made (see ``patching``).
    """
    group = 2 * (memory.status != "permanent")
    if memory.importance is None:
        return (group + 1, memory.category, -memory.updated_at, memory.id)
    if tie_break == "id":
        return (group, -memory.importance, memory.id)
    latest = recency(memory)
    return (group, -memory.importance, latest is None, -(latest or 0), memory.id)
