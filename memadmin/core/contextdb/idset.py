"""A store's ids, held compactly: a sorted array of 8-byte integers, not a set of Python ints.

At 450,000 rows a frozenset of the ids takes about 30 MB (a copy with one id more as
much again); the array takes 3.6 MB. Membership is a binary search.
"""

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator

import numpy as np


def _as_array(values: np.ndarray) -> array:
    """Return an int64 numpy array's values as an ``array('q')`` (bisect reads it natively)."""
    held = array("q")
    held.frombytes(values.astype(np.int64, copy=False).tobytes())
    return held


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """Return the values sorted, each once (a sort: numpy's unique hashes, slower here)."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]


def _position(held: array, value: object) -> int | None:
    """Return where ``value`` is in the sorted array, or None."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        return None
    value = int(value)
    position = bisect_left(held, value)
    return position if position < len(held) and held[position] == value else None


class IdSet:
    """An immutable set of integer ids, sorted and unique."""

    __slots__ = ("_held", "_ids")

    def __init__(self, ids: Iterable[int] | np.ndarray = ()):
        values = ids if isinstance(ids, np.ndarray) else np.fromiter(ids, dtype=np.int64)
        self._held = _as_array(_sorted_unique(values.astype(np.int64, copy=False)))
        # The same memory seen by numpy, for the set-wide operations.
        self._ids = np.frombuffer(self._held, dtype=np.int64)

    def __contains__(self, value: object) -> bool:
        return _position(self._held, value) is not None

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[int]:
        return iter(self._held)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IdSet):
            return np.array_equal(self._ids, other._ids)
        if isinstance(other, set | frozenset):
            return len(other) == len(self) and all(value in other for value in self)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __or__(self, other: Iterable[int]) -> "IdSet":
        """Return the union; ``self`` when ``other`` adds nothing (no copy)."""
        extra = np.fromiter(other, dtype=np.int64)
        if not len(extra):
            return self
        return IdSet(np.concatenate([self._ids, extra]))

    def missing(self, values: Iterable[int]) -> list[int]:
        """Return the values not in the set, in their order, as Python ints."""
        wanted = np.fromiter(values, dtype=np.int64)
        return wanted[~np.isin(wanted, self._ids, assume_unique=False)].tolist()


class IdMap:
    """A mapping of integer ids to integer ids held as two sorted int64 arrays.

    Built from pairs (a later pair wins over an earlier one with the same key, as in a dict);
    ``add`` merges more pairs in; a single ``[key] = value`` goes to a small dict looked at
    first. About 16 bytes a pair, against some 100 for a dict of Python ints.
    """

    __slots__ = ("_keys", "_set", "_values")

    def __init__(self, keys: Iterable[int] = (), values: Iterable[int] = ()):
        self._keys = np.empty(0, dtype=np.int64)
        self._values = np.empty(0, dtype=np.int64)
        self._set: dict[int, int] = {}
        self.add(keys, values)

    def add(self, keys: Iterable[int], values: Iterable[int]) -> None:
        """Merge the pairs ``zip(keys, values)`` in; a key given again takes its last value."""
        new_keys = np.fromiter(keys, dtype=np.int64)
        new_values = np.fromiter(values, dtype=np.int64)
        if len(new_keys) != len(new_values):
            raise ValueError("as many keys as values are needed")
        if not len(new_keys):
            return
        if self._set:
            for key in self._set.keys() & set(new_keys.tolist()):
                del self._set[key]
        all_keys = np.concatenate([np.frombuffer(self._keys, dtype=np.int64), new_keys])
        all_values = np.concatenate([np.frombuffer(self._values, dtype=np.int64), new_values])
        order = np.argsort(all_keys, kind="stable")
        all_keys, all_values = all_keys[order], all_values[order]
        last = np.ones(len(all_keys), dtype=bool)
        last[:-1] = all_keys[1:] != all_keys[:-1]
        self._keys, self._values = _as_array(all_keys[last]), _as_array(all_values[last])

    def __setitem__(self, key: int, value: int) -> None:
        self._set[key] = value

    def __getitem__(self, key: int) -> int:
        if key in self._set:
            return self._set[key]
        position = _position(self._keys, key)
        if position is None:
            raise KeyError(key)
        return self._values[position]

    def get(self, key: int, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self._keys) + sum(1 for key in self._set if _position(self._keys, key) is None)
