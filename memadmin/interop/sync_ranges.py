"""Plan a full sync by ranges of ids: the store and memadmin's rows never held whole.

A full sync of a store of 450,000 memories cannot hold every store row and every memadmin
row at once (about 3 KB a row). The store is read a range of ids at a time inside one read
transaction (`StoreRanges`), and memadmin's rows linked to that range with it; the
`Planner` keeps per row only compact state (ids, key digests; `sync_keys`). What memadmin
holds of its own, or holds gone from the store, is read once, whole: its size follows what
memadmin holds apart from the store, not the store.

The rows new to memadmin are the one part of a plan that grows with the store: a plan keeps
their ids and a fingerprint of their values (`StreamedCreates`), and the writer reads them
again, a chunk at a time, when it writes them. A row whose values are no longer the ones
planned (the store changed in between) raises StoreMoved: the sync undoes its new rows
and plans again, as when memadmin's rows moved.
"""

from array import array
from collections.abc import Callable
from functools import partial

from memadmin.core.contextdb.ranges import RANGE_ROWS, StoreRanges

from .sync_plan import FIELDS, Planner, SyncPlan
from .sync_references import References, upstream_values

_METADATA = 1 + FIELDS.index("metadata")

Progress = Callable[[str, int, int], None]


class StoreMoved(Exception):
    """A row new to memadmin changed in the store between the plan and its write."""


def fingerprint(values: tuple) -> int:
    """Return a hash of a values tuple (its metadata, a dict, by its text)."""
    return hash((*values[:_METADATA], repr(values[_METADATA]), *values[_METADATA + 1 :]))


class StreamedCreates:
    """The rows new to memadmin of a plan made by ranges: ids and fingerprints, 16 bytes a row.

    Read like the list of ``(upstream id, values)`` a plan holds otherwise: ``len``, and
    slices, which read those rows from the store again (one statement each, no lock held
    between). ``ids`` gives the upstream ids in order without reading anything.
    """

    def __init__(self, ranges: StoreRanges, values: Callable):
        self.path, self.timeout = ranges.path, ranges.timeout
        self.values = values
        self.ids = array("q")
        self.prints = array("q")
        self.reader: StoreRanges | None = None
        self.last: tuple[tuple[int, int], list] = ((0, 0), [])

    def append(self, item: tuple[int, tuple]) -> None:
        upstream_id, values = item
        self.ids.append(upstream_id)
        self.prints.append(fingerprint(values))

    def __len__(self) -> int:
        return len(self.ids)

    def __bool__(self) -> bool:
        return bool(self.ids)

    def __iter__(self):
        for start in range(0, len(self), RANGE_ROWS):
            yield from self[start : start + RANGE_ROWS]

    def __getitem__(self, index: slice) -> list[tuple[int, tuple]]:
        start, stop, _ = index.indices(len(self))
        if stop <= start:
            return []
        if self.last[0] == (start, stop):  # the writer reads each chunk twice
            return self.last[1]
        planned = dict(zip(self.ids[start:stop], self.prints[start:stop], strict=True))
        if self.reader is None:
            self.reader = StoreRanges(self.path, timeout=self.timeout, snapshot=False).__enter__()
        memories, _ = self.reader.rows(self.ids[start], self.ids[stop - 1])
        rows = []
        for memory in memories:
            printed = planned.get(memory.id)
            if printed is None:
                continue
            values = self.values(memory)
            if fingerprint(values) != printed:
                raise StoreMoved(f"row {memory.id} changed in the store while it was synced")
            rows.append((memory.id, values))
        if len(rows) != len(planned):
            raise StoreMoved("a row left the store while it was synced")
        self.last = ((start, stop), rows)
        return rows

    def close(self) -> None:
        """Close the store, when read again."""
        reader, self.reader = self.reader, None
        if reader is not None:
            reader.__exit__(None, None, None)


def _values_again(references: References, memory) -> tuple:
    """Return a row's values as the plan holds them (its warnings recorded already)."""
    return upstream_values(memory, references.from_upstream(memory, []))


def plan_by_ranges(
    ranges: StoreRanges,
    scope,
    *,
    project: str,
    upstream_of_pk: dict[int, int],
    categories,
    pull_only: bool,
    report: Progress,
    size: int = RANGE_ROWS,
) -> tuple[SyncPlan, list]:
    """Return the plan of a full sync (new rows as StreamedCreates) and the reader's problems.

    ``scope`` is the sync's `Scope`; ``ranges`` is entered. ``project`` limits the rows in
    scope to one project identity.
    """
    store_ids = set(ranges.ids)
    in_scope = ranges.ids_of_project(project) if project else store_ids
    kept = scope.kept_rows(store_ids, upstream_of_pk)
    planner = Planner(
        store_ids=store_ids,
        in_scope=in_scope,
        kept=kept,
        upstream_of_pk=upstream_of_pk,
        categories=categories,
        bases=scope.bases_of(kept),
        pull_only=pull_only,
    )
    # The rows are read again with the plan's references alone: the rest of the planner goes.
    planner.plan.creates = StreamedCreates(ranges, partial(_values_again, planner.references))
    problems, done, total = [], 0, len(in_scope)
    for first, last, memories, found in ranges.ranges(size):
        problems += found
        if project:
            memories = [memory for memory in memories if memory.project_path == project]
        linked = [] if first is None else scope.linked_rows(first, last, store_ids)
        planner.add(memories, linked, scope.bases_of(linked))
        done += len(memories)
        report("compare", done, total)
    return planner.finish(), problems
