"""What a process keeps of its own work, reused while the store's markers say it still holds.

Pages reuse what they worked out before (a prepared ledger, a header map, the stale headers,
a search's ranking, a store's probe) while nothing it was made of has moved. A
`ProcessCache` keeps values by key, each with the version it was made at: the store's
markers it was read under, or None for a value no write makes stale. `get` returns the kept
value while its version is the one asked for and its `still` test (an expiry not yet passed,
a few seconds not yet gone) holds; otherwise it makes the value again, handing the maker what
was kept (`Kept`, or None) so that it can bring it up to date rather than start anew.

A cache holds at most `limit` by `weight` (each value counts one unless told), dropping the
least recently used first but always keeping the newest. Everything happens under the
cache's lock, the making too: two threads never make the same value twice.

`reset_process_caches()` empties every cache of the process: what the test suite does after
each test (a rolled-back test gives the same ids and markers again to other rows), and what
"a new process" means to a measurement.
"""

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import NamedTuple

_caches: "weakref.WeakSet[ProcessCache]" = weakref.WeakSet()


class Kept[V](NamedTuple):
    """A kept value and the version it was made at."""

    version: object
    value: V


class ProcessCache[V]:
    """Values kept by this process, each valid while its version stands: see the module."""

    def __init__(
        self, name: str, *, limit: int | None = None, weight: Callable[[V], int] | None = None
    ):
        """Keep values under `name`, at most `limit` of them by `weight` (None: no bound)."""
        self.name = name
        self.limit = limit
        self._weight = weight
        self._kept: OrderedDict[Hashable, Kept[V]] = OrderedDict()
        self._lock = threading.RLock()
        _caches.add(self)

    def __repr__(self) -> str:
        return f"<ProcessCache {self.name!r}: {len(self._kept)} kept>"

    def __len__(self) -> int:
        return len(self._kept)

    def get(
        self,
        key: Hashable,
        version: object,
        make: Callable[[Kept[V] | None], V],
        *,
        still: Callable[[V], bool] | None = None,
    ) -> V:
        """Return the value kept under `key` at `version`, or the one `make` makes now.

        A kept value counts while `still(value)` is true too. `make` is given what was kept
        (stale, or refused by `still`), or None, and its value is kept at `version`.
        """
        with self._lock:
            kept = self._kept.get(key)
            if (
                kept is not None
                and kept.version == version
                and (still is None or still(kept.value))
            ):
                self._kept.move_to_end(key)
                return kept.value
            value = make(kept)
            self._keep(key, Kept(version, value))
            return value

    def peek(self, key: Hashable) -> Kept[V] | None:
        """Return what is kept under `key`, whatever its version (not counted as a use)."""
        return self._kept.get(key)

    def put(self, key: Hashable, version: object, value: V) -> None:
        """Keep `value` under `key` at `version`, in place of what was kept."""
        with self._lock:
            self._keep(key, Kept(version, value))

    def update(self, key: Hashable, change: Callable[[V], V]) -> None:
        """Keep `change(value)` in place of the value kept under `key`, if any, at its version."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept[key] = Kept(kept.version, change(kept.value))

    def pop(self, key: Hashable) -> None:
        """Drop what is kept under `key`, if anything."""
        with self._lock:
            self._kept.pop(key, None)

    def clear(self) -> None:
        """Drop everything this cache keeps."""
        with self._lock:
            self._kept.clear()

    def _keep(self, key: Hashable, kept: Kept[V]) -> None:
        self._kept[key] = kept
        self._kept.move_to_end(key)
        if self.limit is None:
            return
        while len(self._kept) > 1 and self._weighed() > self.limit:
            self._kept.popitem(last=False)

    def _weighed(self) -> int:
        if self._weight is None:
            return len(self._kept)
        return sum(self._weight(kept.value) for kept in self._kept.values())


def reset_process_caches() -> None:
    """Empty every `ProcessCache` of this process, as a new process starts."""
    for cache in list(_caches):
        cache.clear()
