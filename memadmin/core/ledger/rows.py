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
        if isinstance(position, slice):
            return [self[index] for index in range(*position.indices(len(self)))]
        if position < 0:
            position += len(self)
            if position < 0:
                raise IndexError("ledger row index out of range")
        row = self._made[position]  # raises IndexError past the end, as a list does
        if row is None:
            row = self._made[position] = self._make(position)
        return row

    def __iter__(self) -> Iterator[LedgerRow]:
        for position in range(len(self)):
            yield self[position]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LedgerRows | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # mutable rows, like a list

    def __repr__(self) -> str:
        return f"<LedgerRows: {len(self)} rows, {self._competing} competing>"

    def _make(self, position: int) -> LedgerRow:
        memory = self._memories[position]
        memory_id = memory.id
        tokens = self._costs[position]
        if position < self._competing:
            admission = self._admission
            admitted = bisect_right(admission.positions, position)
            injected = admitted > 0 and admission.positions[admitted - 1] == position
            running_total = admission.totals[admitted - 1] if admitted else admission.start
            first = admission.opened.get(memory.category)
            if first is None or first >= position:  # it opened its category, or would have
                tokens += admission.tag_costs[memory.category]
            reason = None if injected else OVER_BUDGET
            order = position + 1
        else:
            running_total = order = None
            injected = False
            reason = self._reasons.get(memory_id, LAZY_DETAIL)
        index = self._index
        return LedgerRow(
            memory_id,
            index.kind(memory_id),
            memory.category,
            tokens,
            running_total,
            injected,
            reason,
            order,
            memory_id in self._reachable,
            index.heads_of.get(memory_id, ()),
            self._details.get(memory_id, ()),
        )
