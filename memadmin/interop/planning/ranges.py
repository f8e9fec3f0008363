"""Plan a full sync by ranges of ids: the store and memadmin's rows never held whole.

A full sync of a store of 450,000 memories cannot hold every store row and every memadmin
row at once (about 3 KB a row). The store is read a range of ids at a time inside one read
transaction (`StoreRanges`), and memadmin's rows linked to that range with it; the
`Planner` keeps per row only compact state (ids, key digests; `planning.keys`). What memadmin
holds of its own, or holds gone from the store, is read once, whole: its size follows what
memadmin holds apart from the store, not the store.

The rows new to memadmin are the one part of a plan that grows with the store: their values
go to a scratch file as they are planned (`StagedCreates`, marshal, about 200 bytes a row),
and the writer reads them back a chunk at a time. They are the values of the plan's one
snapshot, as when the whole store was held: reading the store again instead would cost a
second read (a second of CPU at 100,000 rows) and a check that nothing moved.
"""

import marshal
import tempfile
from array import array
from collections.abc import Callable

from memadmin.core.contextdb.ranges import RANGE_ROWS, StoreRanges

from .plan import Planner, SyncPlan

Progress = Callable[[str, int, int], None]


class StagedCreates:
    """The rows new to memadmin of a plan made by ranges, staged in a scratch file.

    Read like the list of ``(upstream id, values)`` a plan holds otherwise: ``len``, slices
    and iteration; ``ids`` gives the upstream ids in order without reading the file. Held
    in memory: 16 bytes a row (the id and where its values end). The file has no name (it
    goes when closed, or with the process).
    """

    def __init__(self):
        self.ids = array("q")
        self.ends = array("q")
        # Closed by close(): the sync closes the plan's staged rows once written.
        self.file = tempfile.TemporaryFile(prefix="memadmin-sync-")  # noqa: SIM115
        self.size = 0
        self.last: tuple[tuple[int, int], list] = ((0, 0), [])

    def append(self, item: tuple[int, tuple]) -> None:
        upstream_id, values = item
        data = marshal.dumps(values)
        self.file.write(data)
        self.size += len(data)
        self.ids.append(upstream_id)
        self.ends.append(self.size)

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
        begin = self.ends[start - 1] if start else 0
        self.file.flush()
        self.file.seek(begin)
        data = memoryview(self.file.read(self.ends[stop - 1] - begin))
        self.file.seek(0, 2)
        rows, at = [], 0
        for upstream_id, end in zip(self.ids[start:stop], self.ends[start:stop], strict=True):
            rows.append((upstream_id, marshal.loads(data[at : end - begin])))
            at = end - begin
        self.last = ((start, stop), rows)
        return rows

    def close(self) -> None:
        """Drop the scratch file."""
        self.file.close()
        self.last = ((0, 0), [])


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
    """Return the plan of a full sync (new rows as StagedCreates) and the reader's problems.

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
    planner.plan.creates = StagedCreates()
    problems, done, total = [], 0, len(in_scope)
    try:
        for first, last, memories, found in ranges.ranges(size):
            problems += found
            if project:
                memories = [memory for memory in memories if memory.project_path == project]
            linked = [] if first is None else scope.linked_rows(first, last, store_ids)
            planner.add(memories, linked, scope.bases_of(linked))
            done += len(memories)
            report("compare", done, total)
        return planner.finish(), problems
    except BaseException:
        planner.plan.creates.close()
        raise
