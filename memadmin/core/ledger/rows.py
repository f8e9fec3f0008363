"""The rows of an assembly, made on demand from the few facts the greedy selection decided.

An assembly of 100,000 memories would spend much of its time building 100,000 row objects
that a page then pages through 50 at a time. ``LedgerRows`` keeps the columns instead (the
memories in row order, the cost of each line, which competitors were admitted) and makes a
``LedgerRow`` the first time it is asked for; it is then kept, so a row is one object.
"""

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from .graph import CompositeIndex
from .model import LAZY_DETAIL, OVER_BUDGET, LedgerMemory, LedgerRow, Reason


@dataclass(frozen=True, slots=True)
class Admission:
    """What the greedy selection decided, by position among the competitors.

    ``positions`` are the admitted competitors' positions, ascending, and ``totals`` the
    running total right after each; ``start`` is the total before any (the wrapper).
    ``opened`` maps each category to the position of its first admitted memory, and
    ``tag_costs`` each competing category to the cost of its tags.
    """

    positions: list[int]
    totals: list[int]
    start: int
    opened: dict[str, int]
    tag_costs: dict[str, int]


class LedgerRows(Sequence[LedgerRow]):
    """The rows of one assembly: the competitors in selection order, then the rest by id.

    ``memories`` are in row order, the first ``competing`` of them competitors; ``costs``
    holds each one's line cost (without tags); ``reasons`` the reason of each ineligible
    memory by id (any other memory not competing is a lazy detail); ``reachable`` the ids
    reachable from the injection.
    """

    def __init__(
        self,
        memories: list[LedgerMemory],
        costs: list[int],
        *,
        competing: int,
        admission: Admission,
        reasons: dict[int, Reason],
        reachable: set[int],
        index: CompositeIndex,
        details: dict[int, tuple[int, ...]],
    ):
        """Keep the columns; no row is made yet."""
        self._memories = memories
        self._costs = costs
        self._competing = competing
        self._admission = admission
        self._reasons = reasons
        self._reachable = reachable
        self._index = index
        self._details = details
        self._made: list[LedgerRow | None] = [None] * len(memories)

    @property
    def injected_ids(self) -> list[int]:
        """Return the ids of the injected memories in selection order, making no row."""
        memories = self._memories
        return [memories[position].id for position in self._admission.positions]

    def __len__(self) -> int:
        return len(self._memories)

    @overload
    def __getitem__(self, position: int) -> LedgerRow: ...

    @overload
    def __getitem__(self, position: slice) -> list[LedgerRow]: ...

    def __getitem__(self, position):
        made = self._made
        if isinstance(position, slice):
            start, stop, step = position.indices(len(self))
            if step == 1:
                self._make(start, stop)
                return made[start:stop]
            return [self[index] for index in range(start, stop, step)]
        if position < 0:
            position += len(self)
            if position < 0:
                raise IndexError("ledger row index out of range")
        row = made[position]  # raises IndexError past the end, as a list does
        if row is None:
            self._make(position, position + 1)
            row = made[position]
        return row

    def __iter__(self) -> Iterator[LedgerRow]:
        self._make(0, len(self))
        return iter(self._made)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LedgerRows | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # mutable rows, like a list

    def __repr__(self) -> str:
        return f"<LedgerRows: {len(self)} rows, {self._competing} competing>"

    def _make(self, start: int, stop: int) -> None:
        """Make the rows from ``start`` to ``stop`` that are not made yet, in one pass."""
        made, memories, costs = self._made, self._memories, self._costs
        competing, reasons, reachable = self._competing, self._reasons, self._reachable
        members_of, details = self._index.members_of, self._details
        heads_of = self._index.heads_of if start < stop else {}
        admission = self._admission
        admitted, totals = admission.positions, admission.totals
        opened, tag_costs = admission.opened, admission.tag_costs
        # How many competitors before ``start`` were admitted; kept up to date below.
        before = bisect_right(admitted, start - 1)
        for position in range(start, stop):
            if position < competing and before < len(admitted) and admitted[before] == position:
                before += 1
            if made[position] is not None:
                continue
            memory = memories[position]
            memory_id, category = memory.id, memory.category
            heads = heads_of.get(memory_id, ())
            kind = "header" if memory_id in members_of else "detail" if heads else "standalone"
            tokens = costs[position]
            if position < competing:
                injected = before > 0 and admitted[before - 1] == position
                running_total = totals[before - 1] if before else admission.start
                first = opened.get(category)
                # It opened its category, or would have. (A workspace's phases can admit a row
                # after a later one of its category: then it did not pay the tags.)
                if first is None or first == position or (not injected and first > position):
                    tokens += tag_costs[category]
                reason = None if injected else OVER_BUDGET
                order = position + 1
            else:
                running_total = order = None
                injected = False
                reason = reasons.get(memory_id, LAZY_DETAIL)
            made[position] = LedgerRow(
                memory_id,
                kind,
                category,
                tokens,
                running_total,
                injected,
                reason,
                order,
                memory_id in reachable,
                heads,
                details.get(memory_id, ()),
            )
