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

import numpy as np

from .columns import CANDIDATE_STATUSES, EXACT_LIMIT, Columns, compact, field, floats, pick
from .model import ARCHIVED, EXPIRED, SUPERSEDED, LedgerMemory, Reason, TieBreak


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
    return order if order is not None else _grouped_order(candidates, tie_break)


def selection_positions(
    memories: list[LedgerMemory], candidates: np.ndarray, tie_break: TieBreak, columns: Columns
) -> np.ndarray:
    """Return the positions of the candidates (positions in ``memories``) in selection order.

    ``columns`` holds the memories' fields, read once for every order of the store.
    """
    order = _order_by_arrays(columns, candidates, tie_break)
    if order is not None:
        return candidates[order]
    chosen = pick(memories, candidates)
    position_of = {id(memory): at for at, memory in zip(candidates.tolist(), chosen, strict=True)}
    ordered = _grouped_order(chosen, tie_break)
    return compact(np.array([position_of[id(memory)] for memory in ordered], dtype=np.intp))


def _grouped_order(candidates: list[LedgerMemory], tie_break: TieBreak) -> list[LedgerMemory]:
    """Return ``selection_order``'s order, each group sorted by packed integers (exactly)."""
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


def _sorted_by_arrays(memories: list[LedgerMemory], tie_break: TieBreak) -> list | None:
    """Return ``selection_order``'s order sorted as arrays, None when they cannot be trusted
    (see ``_order_by_arrays``)."""
    everyone = np.arange(len(memories), dtype=np.intp)
    order = _order_by_arrays(Columns(memories), everyone, tie_break)
    return None if order is None else pick(memories, order)


def _order_by_arrays(
    columns: Columns, positions: np.ndarray, tie_break: TieBreak
) -> np.ndarray | None:
    """Return the order of the memories at ``positions`` (indexes into ``positions``) in
    ``selection_order``'s order, sorting all the keys at once with ``np.lexsort``.

    Each memory gets the same key as ``selection_key``, as five columns: its group, then
    minus its importance (its category's rank when it has none), then whether its recency
    is missing, minus its recency (minus its update time when it has no importance), then
    its id. Return None when a number is not a whole number below 2**53 in magnitude (a
    float64 would round it), or is not a number at all: those stores are sorted exactly,
    group by group.
    """
    if len(positions) < 2:
        return np.arange(len(positions), dtype=np.intp)
    read = [columns.importance, columns.ids]
    read.append(columns.recency if tie_break == "recent" else np.zeros(0))
    if any(column is None for column in read):
        return None
    importance, ids = read[0][positions], read[1][positions]
    recency = read[2][positions] if tie_break == "recent" else np.zeros(len(positions))
    del read
    unranked = np.isnan(importance)
    # Only a memory without importance sorts by category (its rank among theirs) and
    # update time: those two are read for these memories alone.
    at = np.flatnonzero(unranked)
    category_rank, updated = np.zeros(len(positions)), np.zeros(len(positions))
    if at.size:
        memories = pick(columns.memories, positions[at])
        read_updated = floats(field(memories, "updated_at"), optional=False)
        if read_updated is None:
            return None
        updated[at] = read_updated
        categories = field(memories, "category")
        rank = {category: rank for rank, category in enumerate(sorted(set(categories)))}
        category_rank[at] = list(map(rank.__getitem__, categories))
    if np.isnan(ids).any() or np.isnan(updated).any():  # missing, or a NaN given as such
        return None
    for column in (importance, ids, updated, recency):
        known = column[~np.isnan(column)]
        if known.size and (np.abs(known).max() >= EXACT_LIMIT or (known != np.trunc(known)).any()):
            return None
    missing = np.isnan(recency)
    group = 2 * columns.active[positions] + unranked
    second = np.where(unranked, category_rank, -importance)
    third = np.where(unranked, False, missing)
    fourth = np.where(unranked, -updated, np.where(missing, 0.0, -recency))
    return _lexsorted([group, second, third, fourth, ids])


PACK_LIMIT = 1 << 63  # an int64 holds every offset packed below this


def _lexsorted(columns: list[np.ndarray]) -> np.ndarray:
    """Return the positions that sort by the columns, the first the most significant.

    Every value is a whole number below 2**53 in magnitude. Neighbouring columns are packed
    into one int64 (offset by their minimum, times the next one's span) while the product
    of their spans stays below 2**63, so fewer keys are sorted: a selection order's five
    columns fit one key or two. One key is sorted by ``np.argsort``'s fastest sort, as
    stable as ``np.lexsort`` when no two keys are equal (checked: else sorted stably).
    """
    keys: list[np.ndarray] = []
    packed, span = None, 1
    for column in columns:
        column = column.astype(np.float64, copy=False)
        low = column.min()
        width = int(column.max() - low) + 1
        if width >= EXACT_LIMIT:  # its offsets would not all be exact: sorted as it is
            keys.extend([key for key in (packed, column) if key is not None])
            packed, span = None, 1
            continue
        offsets = (column - low).astype(np.int64)
        if packed is not None and span * width < PACK_LIMIT:
            packed, span = packed * width + offsets, span * width
        else:
            if packed is not None:
                keys.append(packed)
            packed, span = offsets, width
    if packed is not None:
        keys.append(packed)
    if len(keys) > 1:
        return np.lexsort(keys[::-1])
    order = np.argsort(keys[0])
    ordered = keys[0][order]
    if (ordered[1:] == ordered[:-1]).any():  # equal keys: kept in the order given
        order = np.argsort(keys[0], kind="stable")
    return order


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
