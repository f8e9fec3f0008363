"""The memories' fields as columns, and memories named by their position in the store.

A prepared store of 100,000 memories would otherwise walk its memories once per question
(which are candidates, which expire next, how they sort, which are top-level), each walk a
Python loop over named tuples. Here each field a step needs is read with
``operator.itemgetter`` over the tuples (a C loop) into a list or a float64 array, once,
and memories are then named by their position: numpy selects, sorts and looks up
positions in bulk. What a store keeps for its life is positions (int32) and masks; the
columns an order is sorted by are read when it is made and let go.

A float64 holds every whole number below 2**53 exactly. A column whose numbers do not all
fit (or are not numbers) is not trusted: the callers then take their exact, slower path.
"""

from functools import cached_property
from itertools import compress
from operator import itemgetter

import numpy as np

from .model import LedgerError, LedgerMemory

EXACT_LIMIT = 1 << 53  # a float64 holds every whole number below this exactly

_getters = {name: itemgetter(at) for at, name in enumerate(LedgerMemory._fields)}


def field(memories: list[LedgerMemory], name: str) -> list:
    """Return one field of every memory, in order."""
    return list(map(_getters[name], memories))


_MISSING = {None: float("nan")}
_PERMANENT = frozenset({"permanent"})


def floats(values: list, *, optional: bool = True) -> np.ndarray | None:
    """Return the values as float64, None when one cannot be read as a number.

    A missing value (None) is NaN when the field is ``optional``, unreadable otherwise.
    """
    try:
        return np.fromiter(values, dtype=np.float64, count=len(values))
    except (TypeError, ValueError, OverflowError):
        if not optional:
            return None
    # None made NaN by a dict, in C: faster than letting numpy find each one.
    try:
        return np.fromiter(map(_MISSING.get, values, values), dtype=np.float64, count=len(values))
    except (TypeError, ValueError, OverflowError):
        return None


def exact(column: np.ndarray) -> bool:
    """Return whether every number in the column was read exactly (below 2**53, or NaN)."""
    return not (np.abs(column) >= EXACT_LIMIT).any()


def pick(items: list, positions) -> list:
    """Return the items at these positions (a numpy array or a list of ints), in that order."""
    if len(positions) == 0:
        return []
    positions = positions.tolist() if isinstance(positions, np.ndarray) else positions
    if len(positions) == 1:
        return [items[positions[0]]]
    return list(itemgetter(*positions)(items))


def compact(positions: np.ndarray) -> np.ndarray:
    """Return positions kept for a store's life as int32: half the memory of int64 (a
    store holds far fewer than 2**31 memories; one that did keeps int64)."""
    if positions.dtype == np.int32 or (positions.size and int(positions.max()) >= 1 << 31):
        return positions
    return positions.astype(np.int32)


def mask_of(positions: np.ndarray, count: int) -> np.ndarray:
    """Return a boolean mask over ``count`` positions, True at these."""
    mask = np.zeros(count, dtype=bool)
    mask[positions] = True
    return mask


class Columns:
    """The fields selection compares, for every memory of a store, read when an order is
    made (not kept: an order is made once per tie-break, and a store kept for the next
    request would carry them for nothing).

    Numbers are float64, a missing one NaN; a field is None when one of its values could
    not be read as a number (see ``floats``). ``active`` says which memories are not
    permanent: worked out from ``statuses`` when given (already read), else when first
    asked. (The update time and the category order only memories without importance:
    ``ordering`` reads them for those alone.)
    """

    def __init__(
        self,
        memories: list[LedgerMemory],
        *,
        ids: np.ndarray | None = None,
        statuses: list | None = None,
    ):
        self.memories = memories
        self._ids = ids
        if statuses is not None:
            self.active = _active(statuses)

    @property
    def ids(self) -> np.ndarray | None:
        if self._ids is not None:
            return self._ids.astype(np.float64)
        return floats(field(self.memories, "id"), optional=False)

    @cached_property
    def active(self) -> np.ndarray:
        return _active(field(self.memories, "status"))

    @property
    def importance(self) -> np.ndarray | None:
        return floats(field(self.memories, "importance"))

    @property
    def recency(self) -> np.ndarray | None:
        """Return the later of last seen and verified (what ``ordering.recency`` compares)."""
        seen = floats(field(self.memories, "last_seen_at"))
        verified = floats(field(self.memories, "verified_at"))
        return None if seen is None or verified is None else np.fmax(seen, verified)


def _active(statuses: list) -> np.ndarray:
    return ~np.fromiter(map(_PERMANENT.__contains__, statuses), dtype=bool, count=len(statuses))


class IdPositions:
    """The memories' ids and where each one is, for looking ids up and sorting by id.

    ``ids`` lists the ids in the store's order; ``by_id_order`` the positions sorted by id.
    When every id is a machine integer, ids are sorted and looked up with numpy; otherwise
    with a dict and Python's ``sorted``.
    Raise LedgerError for an id given twice, naming the first repeated one.
    """

    __slots__ = ("_position_of", "array", "by_id_order", "ids")

    def __init__(self, memories: list[LedgerMemory]):
        self.ids = field(memories, "id")
        array = np.array(self.ids) if self.ids else np.zeros(0, dtype=np.int64)
        self._position_of: dict | None = None
        self.array: np.ndarray | None = None  # the ids as int64, when they all are
        if array.dtype.kind == "i":
            self.array = array
            self.by_id_order = compact(np.argsort(array, kind="stable"))
            ordered = array[self.by_id_order]
            if (ordered[1:] == ordered[:-1]).any():
                _raise_for_repeated(self.ids)
        else:
            self._position_of = dict(zip(self.ids, range(len(self.ids)), strict=True))
            if len(self._position_of) < len(self.ids):
                _raise_for_repeated(self.ids)
            self.by_id_order = compact(
                np.array(sorted(range(len(self.ids)), key=self.ids.__getitem__), dtype=np.intp)
            )

    def at(self, positions: np.ndarray, *, fresh: bool = False) -> list:
        """Return the ids at these positions: the memories' own id objects, or (``fresh``)
        new ones made from the int64 array when there is one.

        Fresh ints are made and read faster (side by side in memory, where the memories'
        own are scattered), but take 32 bytes each: kept for the details alone (what every
        assembly reads), not for the index's dicts (some 10 MB at 100,000 memories).
        """
        if fresh and self.array is not None:
            return self.array[positions].tolist()
        return pick(self.ids, positions)

    def positions(self, ids: list) -> np.ndarray:
        """Return the position of each id, -1 for an id that is no memory's."""
        if not ids:
            return np.zeros(0, dtype=np.intp)
        if self.array is not None:
            wanted = np.array(ids)
            if wanted.dtype.kind == "i":
                return self._looked_up(wanted)
        position_of = self._position_of
        if position_of is None:  # an id of another kind: looked up as Python compares ids
            position_of = dict(zip(self.ids, range(len(self.ids)), strict=True))
        get = position_of.get
        return np.fromiter((get(value, -1) for value in ids), dtype=np.intp, count=len(ids))

    def _looked_up(self, wanted: np.ndarray) -> np.ndarray:
        """Return the positions of these int64 ids: from a table by id when the ids are
        dense (a few times as many ids as memories at most), else by binary search."""
        found = np.full(wanted.shape, -1, dtype=np.intp)
        if not self.array.size:
            return found
        ordered = self.array[self.by_id_order]
        low, high = int(ordered[0]), int(ordered[-1])
        inside = (wanted >= low) & (wanted <= high)
        wanted = wanted[inside]
        if high - low < 4 * ordered.size + 1024:
            table = np.full(high - low + 1, -1, dtype=np.intp)
            table[self.array - low] = np.arange(self.array.size)
            found[inside] = table[wanted - low]
        else:
            at = np.minimum(np.searchsorted(ordered, wanted), ordered.size - 1)
            found[inside] = np.where(ordered[at] == wanted, self.by_id_order[at], -1)
        return found


def _raise_for_repeated(ids: list) -> None:
    seen: set = set()
    for memory_id in ids:
        if memory_id in seen:
            raise LedgerError(f"Memory #{memory_id} is given twice; ids must be unique.")
        seen.add(memory_id)


CANDIDATE_STATUSES = frozenset({"active", "permanent"})


def candidate_mask(
    statuses: list, expiries: list, now_ms: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """Return which memories are candidates (see ``ordering.ineligible_reason``), given each
    one's status and ``expires_at``, and those expiries as float64 when compared as such.

    Compared as arrays when every expiry and the clock are exact as float64 and no NaN is
    given as such (Python's ``nan > now`` is False: not a missing expiry); otherwise one
    by one, exactly.
    """
    live = np.fromiter(
        map(CANDIDATE_STATUSES.__contains__, statuses), dtype=bool, count=len(statuses)
    )
    column = floats(expiries) if abs(now_ms) < EXACT_LIMIT else None
    missing = expiries.count(None)
    if column is not None and exact(column) and np.isnan(column).sum() == missing:
        if missing < len(expiries):
            live &= np.isnan(column) | (column > now_ms)
        return live, column
    for at in compress(range(len(statuses)), live.tolist()):
        moment = expiries[at]
        live[at] = moment is None or moment > now_ms
    return live, None


def first_ahead(expiries: list, column: np.ndarray | None, now_ms: int) -> int | None:
    """Return the first expiry still ahead of ``now_ms``, None when there is none.

    ``column`` (``candidate_mask``'s floats, when exact) finds the few expiries ahead.
    """
    if column is not None:
        expiries = pick(expiries, np.flatnonzero(column > now_ms))
    ahead = [moment for moment in expiries if moment is not None and moment > now_ms]
    return min(ahead, default=None)
