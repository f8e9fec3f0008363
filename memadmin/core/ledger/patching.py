"""Bring a prepared store up to date for a few edited memories instead of preparing it anew.

After an edit, a 98,000-memory store would be prepared again whole: its graph, candidates,
lines, selection orders, roots and line costs. When the new memories differ from the
store's only at a few positions, each under the same id, with the same eligibility, the
same composites and a clock that moves no expiry across, everything is the old store's
but for those memories: their lines are rendered again, their costs counted again, and
each of them is taken out of every selection order kept and put back where its new key
puts it (``ordering.selection_key``). ``patched`` returns None when any of that does not
hold, and the store is prepared whole. The result is the store a fresh preparation makes,
attribute for attribute (``tests/core/test_ledger_patching.py``).
"""

from bisect import bisect_left
from collections.abc import Collection
from dataclasses import dataclass
from functools import partial
from itertools import compress
from operator import attrgetter, is_not
from typing import TYPE_CHECKING

import numpy as np

from .columns import Columns, compact, pick
from .model import LedgerComposite, LedgerMemory, TieBreak
from .ordering import ineligible_reason, selection_key
from .reader import DroppedRow, read_rows_at
from .render import counted_lines

if TYPE_CHECKING:
    from .prepared import PreparedStore

PATCH_MOST = 1000  # edited memories patched in; past that the store is prepared whole


def next_expiry(memories: list[LedgerMemory], now_ms: int) -> int | None:
    """Return the first expiry still ahead of ``now_ms``, None when there is none."""
    ahead = [
        moment
        for memory in memories
        if (moment := memory.expires_at) is not None and moment > now_ms
    ]
    return min(ahead, default=None)


def edited_positions(old: list[LedgerMemory], new: list[LedgerMemory]) -> list[int] | None:
    """Return the positions where the memories differ (same id at each), None if ids moved."""
    if len(old) != len(new):
        return None
    # Positions holding another object, found in C (most are the very same), then compared.
    moved = compress(range(len(old)), map(is_not, old, new))
    positions = [at for at in moved if old[at] != new[at]]
    if len(positions) > PATCH_MOST:
        return None
    if any(old[at].id != new[at].id for at in positions):
        return None
    return positions


def patched(
    previous: "PreparedStore",
    memories: list[LedgerMemory],
    composites: list[LedgerComposite],
    now_ms: int,
) -> "PreparedStore | None":
    """Return ``previous`` brought up to date for these memories, or None (see the module)."""
    from .prepared import PreparedStore

    if not previous.now_ms <= now_ms or (previous.expiry is not None and now_ms >= previous.expiry):
        return None
    if composites != previous.composites:
        return None
    positions = edited_positions(previous.memories, memories)
    if positions is None:
        return None
    olds = [previous.memories[at] for at in positions]
    news = [memories[at] for at in positions]
    for old, new in zip(olds, news, strict=True):
        if (ineligible_reason(old, now_ms) is None) != (ineligible_reason(new, now_ms) is None):
            return None
        ahead = new.expires_at is not None and new.expires_at > now_ms
        if ahead and (previous.expiry is None or new.expires_at < previous.expiry):
            return None  # a new expiry ahead would move the store's own
    store = object.__new__(PreparedStore)
    store.now_ms = now_ms
    store.expiry = previous.expiry
    store.composites = composites
    store.memories = memories
    # The same ids at the same positions, the same candidates, the same graph.
    store._positions = previous._positions
    store._live = previous._live
    store._candidate_positions = previous._candidate_positions
    store._ineligible_positions = previous._ineligible_positions
    store._columns = Columns(memories, ids=store._positions.array)  # read when an order is made
    store.ineligible = pick(memories, store._ineligible_positions)
    if "by_id" in previous.__dict__:  # made: patched, cheaper than made again
        by_id = dict(previous.by_id)
        by_id.update((memory.id, memory) for memory in news)
        store.by_id = by_id
    reasons = dict(previous.reasons)
    for memory in news:
        reason = ineligible_reason(memory, now_ms)
        if reason is not None:
            reasons[memory.id] = reason
    store.reasons = reasons
    store.index = previous.index
    store._edges = previous._edges
    store.details = previous.details
    store._suffixes = previous._suffixes
    store._heads = None  # made again from the new memories when asked
    store._suffix_positions = previous._suffix_positions
    store._promoted = dict(previous._promoted)
    store._donor = None  # its lines are the previous store's
    _patch_lines(store, previous, positions, news)
    _patch_orders(store, previous, positions, news)
    _patch_costs(store, previous, news)
    _patch_arranged(store, previous, positions, olds, news)
    return store


def _patch_lines(store, previous, positions: list[int], news: list[LedgerMemory]) -> None:
    fresh = counted_lines(news, {})
    headers = None
    if previous._headers is not None:
        headers = dict(previous._headers)
        heads = [memory for memory in news if memory.id in store._suffixes]
        lines = counted_lines(heads, store._suffixes)
        headers.update(zip((memory.id for memory in heads), lines, strict=True))
    store._headers = headers
    store._lines = {}
    for mode, lines in previous._lines.items():
        lines = list(lines)
        for at, memory, line in zip(positions, news, fresh, strict=True):
            lines[at] = line if mode != "headers" else store._header_lines().get(memory.id, line)
        store._lines[mode] = lines


def _patch_orders(store, previous, positions: list[int], news: list[LedgerMemory]) -> None:
    """Move each edited candidate within every selection order kept, to where its new key
    puts it (the order's positions, and its memories when they were made)."""
    store._order_positions, store._orders = {}, {}
    for tie_break, order in previous._order_positions.items():
        order = order.tolist()
        listed = previous._orders.get(tie_break)
        listed = list(listed) if listed is not None else None
        current = list(previous.memories)  # the memory each position holds, as edits go in

        def key(position: int, current=current, tie_break: TieBreak = tie_break) -> tuple:
            return selection_key(current[position], tie_break)

        for position, new in zip(positions, news, strict=True):
            if not store._live[position]:
                continue  # neither competes
            at = bisect_left(order, selection_key(current[position], tie_break), key=key)
            if at >= len(order) or order[at] != position:
                return _forget_orders(store)
            del order[at]
            current[position] = new
            to = bisect_left(order, selection_key(new, tie_break), key=key)
            order.insert(to, position)
            if listed is not None:
                del listed[at]
                listed.insert(to, new)
        store._order_positions[tie_break] = compact(np.array(order, dtype=np.intp))
        if listed is not None:
            store._orders[tie_break] = listed
    # Roots depend on the order only when a ring of headers had one promoted.
    kept = [
        tie_break
        for tie_break in previous._roots
        if tie_break in store._order_positions and not previous._promoted[tie_break]
    ]
    store._roots = {tie_break: previous._roots[tie_break] for tie_break in kept}
    store._root_ids = {
        tie_break: previous._root_ids[tie_break]
        for tie_break in kept
        if tie_break in previous._root_ids
    }


def _patch_arranged(
    store, previous, positions: list[int], olds: list[LedgerMemory], news: list[LedgerMemory]
) -> None:
    """Patch each kept arrangement (``PreparedStore.arranged``) and its costs, as the orders.

    A competitor is moved as in the selection order (the competitors are a part of it, in
    its order); any other edited memory keeps its place among the others, by id. Each move
    is replayed on the competitors' positions and on the lists of costs, with the edited
    memory's new cost.
    """
    store._arranged, store._arranged_positions = {}, {}
    moves: dict[tuple[str, str], list[tuple[int, int, int]]] = {}
    recategorised = any(old.category != new.category for old, new in zip(olds, news, strict=True))
    for (kind, tie_break), (competitors, resting, categories) in previous._arranged.items():
        if tie_break not in store._order_positions or (
            kind == "headers" and tie_break not in store._roots
        ):
            continue  # made again when asked for
        key = partial(selection_key, tie_break=tie_break)
        roots = store._roots[tie_break] if kind == "headers" else None
        competing, others = previous._arranged_positions[kind, tie_break]
        competitors, resting, competing = list(competitors), list(resting), competing.tolist()
        steps = moves[kind, tie_break] = []
        for position, old, new in zip(positions, olds, news, strict=True):
            if store._live[position] and (roots is None or roots[position]):
                at = bisect_left(competitors, key(old), key=key)
                del competitors[at], competing[at]
                to = bisect_left(competitors, key(new), key=key)
                competitors.insert(to, new)
                competing.insert(to, position)
                steps.append((at, to, new.id))
            else:
                at = bisect_left(resting, new.id, key=attrgetter("id"))
                resting[at] = new
                steps.append((-1, at, new.id))
        if kind == "plugin":  # the same lists as the store's own: share them
            competitors, resting = store.selection(tie_break), store.ineligible
            competing = store._order_positions[tie_break]
        if recategorised:
            categories = sorted({memory.category for memory in competitors})
        store._arranged[kind, tie_break] = (competitors, resting, categories)
        store._arranged_positions[kind, tie_break] = (
            compact(np.asarray(competing, dtype=np.intp)),
            others,
        )
    store._arranged_costs = {}
    for (counter_id, mode, tie_break), (
        counter,
        competing,
        rest,
    ) in previous._arranged_costs.items():
        steps = moves.get(("headers" if mode == "headers" else "plugin", tie_break))
        if steps is None:
            continue
        costs = store.costs(counter, mode)
        competing, rest = list(competing), list(rest)
        for at, to, memory_id in steps:
            if at < 0:
                rest[to] = costs[memory_id]
            else:
                del competing[at]
                competing.insert(to, costs[memory_id])
        store._arranged_costs[counter_id, mode, tie_break] = (counter, competing, rest)


def _forget_orders(store) -> None:
    store._order_positions, store._orders = {}, {}
    store._roots, store._root_ids = {}, {}


def _patch_costs(store, previous, news: list[LedgerMemory]) -> None:
    from .prepared import count_all

    store._costs = {}
    for (counter_id, mode), (counter, costs) in previous._costs.items():
        costs = dict(costs)
        if getattr(counter, "count_memories", None) is not None:
            # No line rendered but the headers' (see ``PreparedStore._memory_costs``).
            suffixed = store._suffixes if mode == "headers" else {}
            heads = [memory for memory in news if memory.id in suffixed]
            rest = [memory for memory in news if memory.id not in suffixed]
            counts = counter.count_memories(rest)
            costs.update(zip(map(attrgetter("id"), rest), counts, strict=True))
            count_headers = getattr(counter, "count_headers", None)
            if count_headers is not None:
                counts = count_headers(heads, suffixed)
            else:
                counts = count_all(counter, counted_lines(heads, suffixed))
            costs.update(zip(map(attrgetter("id"), heads), counts, strict=True))
            store._costs[counter_id, mode] = (counter, costs)
            continue
        lines = [
            store._header_lines()[memory.id]
            if mode == "headers" and memory.id in store._suffixes
            else counted_lines((memory,), {})[0]
            for memory in news
        ]
        count_many = getattr(counter, "count_many", None)
        counts = count_many(lines) if count_many is not None else list(map(counter.count, lines))
        costs.update(zip((memory.id for memory in news), counts, strict=True))
        store._costs[counter_id, mode] = (counter, costs)


@dataclass(frozen=True, slots=True)
class RowRead:
    """One pass of the plugin's row reader over a project's memories, kept to be patched.

    ``kept`` and ``dropped`` are ``reader.read_rows``'s answer for ``inputs`` at ``now_ms``;
    ``skipped`` the positions in ``inputs`` of the dropped rows; ``expiry`` the first expiry
    ahead among the inputs, where a row may turn from live to expired (and be read anew).
    """

    inputs: list[LedgerMemory]
    kept: list[LedgerMemory]
    dropped: tuple[DroppedRow, ...]
    skipped: list[int]
    categories: tuple[str, ...]
    pack: bool
    now_ms: int
    expiry: int | None


def read_rows_again(
    previous: RowRead | None,
    memories: list[LedgerMemory],
    *,
    categories: Collection[str],
    pack: bool,
    now_ms: int,
) -> RowRead:
    """Return the reader's pass over these memories, patched from ``previous`` when it can be.

    The same as reading every row again (``reader.read_rows``): only the edited memories are
    read when the memories differ from ``previous.inputs`` at a few positions under the same
    ids, each kept before and after, with the same categories and no expiry crossed.
    """
    categories = tuple(categories)
    if previous is not None:
        patched_read = _reread(previous, memories, categories, pack, now_ms)
        if patched_read is not None:
            return patched_read
    kept, dropped, skipped = read_rows_at(memories, categories=categories, pack=pack, now_ms=now_ms)
    return RowRead(
        memories,
        kept,
        tuple(dropped),
        skipped,
        categories,
        pack,
        now_ms,
        next_expiry(memories, now_ms),
    )


def _reread(
    previous: RowRead,
    memories: list[LedgerMemory],
    categories: tuple[str, ...],
    pack: bool,
    now_ms: int,
) -> RowRead | None:
    if (previous.categories, previous.pack) != (categories, pack):
        return None
    if not previous.now_ms <= now_ms or (previous.expiry is not None and now_ms >= previous.expiry):
        return None
    positions = edited_positions(previous.inputs, memories)
    if positions is None:
        return None
    kept = list(previous.kept) if positions else previous.kept
    skipped = previous.skipped
    for at in positions:
        new = memories[at]
        ahead = new.expires_at is not None and new.expires_at > now_ms
        if ahead and (previous.expiry is None or new.expires_at < previous.expiry):
            return None  # a new expiry ahead would come before the read's own
        fresh, dropped, _ = read_rows_at([new], categories=categories, pack=pack, now_ms=now_ms)
        before = bisect_left(skipped, at)
        if dropped or (before < len(skipped) and skipped[before] == at):
            return None  # dropped before or after: the dropped rows would change
        kept[at - before] = fresh[0]
    return RowRead(
        memories,
        kept,
        previous.dropped,
        skipped,
        categories,
        pack,
        now_ms,
        previous.expiry,
    )
