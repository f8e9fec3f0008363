"""A store's ids, held compactly: a sorted array of 8-byte integers, not a set of Python ints.

At 450,000 rows a frozenset of the ids takes about 30 MB (a copy with one id more as
much again); the array takes 3.6 MB. Membership is a binary search.
"""

from collections.abc import Iterable, Iterator

import numpy as np


class IdSet:
    """An immutable set of integer ids, sorted and unique."""

    __slots__ = ("_ids",)

    def __init__(self, ids: Iterable[int] | np.ndarray = ()):
        array = ids if isinstance(ids, np.ndarray) else np.fromiter(ids, dtype=np.int64)
        self._ids = np.unique(array.astype(np.int64, copy=False))

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int | np.integer) or isinstance(value, bool):
            return False
        position = int(np.searchsorted(self._ids, value))
        return position < len(self._ids) and int(self._ids[position]) == value

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[int]:
        return iter(self._ids.tolist())

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
        for key in self._set.keys() & set(new_keys.tolist()):
            del self._set[key]
        all_keys = np.concatenate([self._keys, new_keys])
        all_values = np.concatenate([self._values, new_values])
        order = np.argsort(all_keys, kind="stable")
        all_keys, all_values = all_keys[order], all_values[order]
        last = np.ones(len(all_keys), dtype=bool)
        last[:-1] = all_keys[1:] != all_keys[:-1]
        self._keys, self._values = all_keys[last], all_values[last]

    def __setitem__(self, key: int, value: int) -> None:
        self._set[key] = value

    def __getitem__(self, key: int) -> int:
        if key in self._set:
            return self._set[key]
        if isinstance(key, int | np.integer) and not isinstance(key, bool):
            position = int(np.searchsorted(self._keys, key))
            if position < len(self._keys) and int(self._keys[position]) == key:
                return int(self._values[position])
        raise KeyError(key)

    def get(self, key: int, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self._keys) + sum(1 for key in self._set if self._array_get(key) is None)

    def _array_get(self, key: int) -> int | None:
        position = int(np.searchsorted(self._keys, key))
        if position < len(self._keys) and int(self._keys[position]) == key:
            return int(self._values[position])
        return None
