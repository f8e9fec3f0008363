"""A prepared store per project, kept by the process while the store and the clock allow.

Reading 98,000 memories and preparing them takes most of a second; the ledger page needs
them on every view and at every budget. So a process keeps, per project, the ledger's
inputs (the rows read, as the ledger's memories: a row is made again from its memory and
the few values the memory does not keep as read, `row_extras`), the `PreparedStore`, the
counter that knows each line's cost and the last few results, under the store's *markers* (one query: the store version that
`audit_record` moves on, the newest audit event, and the newest history version of
memories, composites and members: every recorded write and every sync moves one of them)
and up to the next moment an expiry changes the candidates.

When the markers moved, the entry is brought up to date from what changed: the memories
named by the new events and those with newer history versions are read again (no more
than PATCH_LIMIT of them; past that, or after a sync or a project change, everything is
read again), composites and members are read again if theirs moved, and the store is
prepared anew from the rows in memory. A budget move with nothing written only runs the
selection again; the same view again reads one row.

Each mode's read of the rows (`ReadStore`: the plugin's row reader, the workspace's
foreign rows, a prepared store) is kept with the entry and dropped whenever the markers move,
since a workspace's other members may be what changed.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from memadmin.audit.models import AuditEvent
from memadmin.composites.store_markers import Markers, store_markers
from memadmin.core.ledger import LedgerResult, ReadStore, assemble_read
from memadmin.core.ledger.model import Mode, TieBreak, TokenCounter
from memadmin.core.ledger.patching import next_expiry
from memadmin.core.process_cache import Kept, ProcessCache
from memadmin.ledger.free_memory import give_back_free_memory
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .count_cache import PreloadedCounter, cache_label, counts_for
from .inputs import (
    LedgerInputs,
    composite_rows,
    inputs_from_rows,
    ledger_memory,
    memory_row,
    memory_rows,
    row_extras,
)

PATCH_LIMIT = 500  # changed memories read one by one; beyond that the project is read again
# Prepared projects a process keeps: the most recently used, while together they hold no
# more than KEPT_MEMORIES memories (a 98,000-memory one: ~100 MB), and always the last one.
# A count of projects instead made the overview of three projects read all three every time.
KEPT_MEMORIES = 110_000
KEPT_RESULTS = 8  # assemblies kept per project (budget, mode, tie-break, counter)
FULL_READ_OBJECTS = {"project"}  # a sync, an import, a project change: read it all again


@dataclass
class PreparedEntry:
    """One project as read and prepared, with what it was read at."""

    project_pk: int
    markers: Markers
    valid_until: int | None  # the first expiry still ahead when it was prepared (ms)
    extras: dict[int, tuple]  # by primary key: what a row held that its memory does not
    composites: list[tuple]
    members: list[tuple]
    inputs: LedgerInputs
    reads: dict[tuple[str, ...], tuple] = field(default_factory=dict)
    counters: dict[str, PreloadedCounter] = field(default_factory=dict)
    results: OrderedDict = field(default_factory=OrderedDict)
    # The reads of the entry this one was brought up to date from: each mode's store is
    # patched from its old one (`PreparedStore.edited`) rather than prepared anew.
    hints: dict[tuple[str, ...], tuple] = field(default_factory=dict)
    # Held while the reads, counters and results are looked up or made: a kept entry is
    # shared by the server's request threads, and an assembly fills its counter's unsaved
    # counts while another would save them.
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    def previous_reads(self, modes: Sequence[Mode]) -> dict[str, ReadStore]:
        """Return the earlier reads of these modes (each mode's `ReadStore`), if any."""
        found: dict[str, ReadStore] = {}
        for reads, _workspace in self.hints.values():
            found.update((mode, read) for mode, read in reads.items() if mode in modes)
        return found

    def reads_for(self, modes: Sequence[Mode], make: Callable[[], tuple]) -> tuple:
        """Return what `make` returns for these modes (their reads first), made once."""
        key = tuple(modes)
        with self.lock:
            made = self.reads.get(key)
            if made is None:
                made = self.reads[key] = make()
                self.hints = {}  # patched from, now let go: two prepared stores cost twice
        return made

    def forget_reads(self) -> None:
        """Drop the reads and results, keeping the rows and the counts."""
        with self.lock:
            self.reads.clear()
            self.results.clear()

    @cached_property
    def positions(self) -> dict[int, int]:
        """Return each memory's position in the inputs, by primary key (rows keep that order)."""
        pk_of = self.inputs.pk_of
        return {pk_of[memory.id]: at for at, memory in enumerate(self.inputs.memories)}

    def rows(self) -> dict[int, tuple]:
        """Return the memory rows (MEMORY_FIELDS) the inputs were made of, by primary key, in
        their order: each made again from its memory (the same value objects)."""
        pk_of, extras = self.inputs.pk_of, self.extras
        return {
            (pk := pk_of[memory.id]): memory_row(memory, pk, extras.get(pk))
            for memory in self.inputs.memories
        }

    def assemble(
        self,
        reads: dict[str, ReadStore],
        *,
        counter: TokenCounter,
        budget: int,
        modes: Sequence[Mode],
        tie_break: TieBreak,
    ) -> tuple[dict[str, LedgerResult], int]:
        """Return the result of each mode (kept ones reused) and how many counts were new.

        One assembly at a time per entry (its `lock`): two requests' would share the
        counter, its unsaved counts and the kept results.
        """
        with self.lock:
            # By label: a counter's name and version say what it counts, whichever object it is.
            label = cache_label(counter)
            stores = {id(read.store): read.store for read in reads.values()}.values()
            cached = self.counters.get(label)
            if cached is None:
                # Each memory's line (a header's with its details too) is keyed by its id and
                # content digest, rendered only if it must be counted; the wrapper and the
                # tags by their text.
                memories, headers, texts = [], [], {}
                for store in stores:
                    counted = store.counted()
                    memories.append(counted.memories)
                    headers.append((counted.headers, counted.suffixes))
                    texts.update(dict.fromkeys(counted.texts))
                cached, _ = counts_for(counter, list(texts), memories, headers)
                del memories, headers, texts, counted
                self.counters[label] = cached
            results = {}
            made = False
            for mode in modes:
                key = (label, budget, mode, tie_break, id(reads[mode]))
                result = self.results.get(key)
                if result is None:
                    made = True
                    result = assemble_read(
                        reads[mode], budget=budget, counter=cached, tie_break=tie_break
                    )
                    self.results[key] = result
                    while len(self.results) > KEPT_RESULTS:
                        self.results.popitem(last=False)
                results[mode] = result
            cached.forget_keys()  # kept, they would keep these stores' memories alive
            if made:
                for store in stores:
                    store.forget_lines()  # costed: kept, they would double the contents' memory
                give_back_free_memory()  # the lines, and any rows read, let go
            return results, cached.store.save()


# By project, under the store's markers and while the clock stays in the entry's window.
prepared_projects: ProcessCache[PreparedEntry] = ProcessCache(
    "prepared ledger projects",
    limit=KEPT_MEMORIES,
    weight=lambda entry: len(entry.inputs.memories),
)


def prepared_for(project: Project, *, now_ms: int) -> PreparedEntry:
    """Return the project prepared as the store is now and as the clock stands."""
    markers = store_markers()

    def make(kept: Kept[PreparedEntry] | None) -> PreparedEntry:
        if kept is None or not _in_window(kept.value, now_ms):
            return _read(project, markers, now_ms)
        return _brought_up_to_date(project, kept.value, markers, now_ms)

    return prepared_projects.get(
        project.pk, markers, make, still=lambda entry: _in_window(entry, now_ms)
    )


def kept_prepared(project: Project, *, now_ms: int) -> PreparedEntry | None:
    """Return the project as this process keeps it prepared, while the store and the clock
    allow; None when it would have to be read or brought up to date. Reads the markers only."""
    kept = prepared_projects.peek(project.pk)
    if kept is None or not _in_window(kept.value, now_ms) or kept.version != store_markers():
        return None
    return kept.value


def _in_window(entry: PreparedEntry, now_ms: int) -> bool:
    return entry.valid_until is None or now_ms < entry.valid_until


def _prepare(
    project: Project,
    markers: Markers,
    now_ms: int,
    rows: dict[int, tuple],
    composites: list[tuple],
    members: list[tuple],
) -> PreparedEntry:
    inputs = inputs_from_rows(list(rows.values()), composites, members, identity=project.identity)
    return _entry(project, markers, now_ms, inputs, row_extras(rows.values()), composites, members)


def _entry(
    project: Project,
    markers: Markers,
    now_ms: int,
    inputs: LedgerInputs,
    extras: dict[int, tuple],
    composites: list[tuple],
    members: list[tuple],
) -> PreparedEntry:
    return PreparedEntry(
        project_pk=project.pk,
        markers=markers,
        valid_until=next_expiry(inputs.memories, now_ms),
        extras=extras,
        composites=composites,
        members=members,
        inputs=inputs,
    )


def _read(project: Project, markers: Markers, now_ms: int) -> PreparedEntry:
    rows = {row[0]: row for row in memory_rows(project)}
    composites, members = composite_rows(project)
    return _prepare(project, markers, now_ms, rows, composites, members)


def _brought_up_to_date(
    project: Project, entry: PreparedEntry, markers: Markers, now_ms: int
) -> PreparedEntry:
    """Return the entry with what changed since its markers read again, or all of it."""
    _, last_event, memory_history, composite_history, member_history = entry.markers
    events = list(
        AuditEvent.objects.filter(id__gt=last_event)
        .order_by()
        .values_list("project_id", "object_type", "object_id")[: PATCH_LIMIT + 1]
    )
    ours = [(kind, pk) for project_pk, kind, pk in events if project_pk in (project.pk, None)]
    if len(events) > PATCH_LIMIT or any(kind in FULL_READ_OBJECTS for kind, _ in ours):
        return _read(project, markers, now_ms)
    named = {int(pk) for kind, pk in ours if kind == "memory" and pk.isdigit()}
    versioned = set(
        Memory.history.filter(history_id__gt=memory_history, project_id=project.pk)
        .order_by()
        .values_list("id", flat=True)[: PATCH_LIMIT + 1]
    )
    changed = named | versioned
    if len(changed) > PATCH_LIMIT:
        return _read(project, markers, now_ms)
    composites_moved = (composite_history, member_history) != markers[3:] or any(
        kind == "composite" for kind, _ in ours
    )
    if not changed and not composites_moved:
        entry.markers = markers  # written elsewhere: this project's rows are as they were
        entry.forget_reads()  # ... but a workspace member's may not be
        return entry
    fresh = memory_rows(project, sorted(changed))
    inputs = None if composites_moved else _edited_inputs(entry, changed, fresh, project.identity)
    if inputs is not None:  # the same memories under the same ids, in the same places
        extras = dict(entry.extras)
        for pk in changed:
            extras.pop(pk, None)
        extras.update(row_extras(fresh))
        prepared = _entry(project, markers, now_ms, inputs, extras, entry.composites, entry.members)
        prepared.positions = entry.positions
    else:
        rows = entry.rows()
        for pk in changed - {row[0] for row in fresh}:
            rows.pop(pk, None)  # gone, or moved to another project
        for row in fresh:
            rows[row[0]] = row  # a memory already there keeps its place
        composites = (
            composite_rows(project) if composites_moved else (entry.composites, entry.members)
        )
        prepared = _prepare(project, markers, now_ms, rows, *composites)
    # What each mode read and counted before: patched rather than made again.
    prepared.hints = entry.reads or entry.hints
    prepared.counters = entry.counters
    return prepared


def _edited_inputs(
    entry: PreparedEntry, changed: set[int], fresh: list[tuple], identity: str
) -> LedgerInputs | None:
    """Return the entry's inputs with the edited memories replaced, None if ids moved.

    Only edits keep every other memory's display id: no memory made or gone, no upstream
    id changed. The composites stay as they are (their rows did not move).
    """
    position, extras = entry.positions, entry.extras
    if len(fresh) != len(changed) or any(
        row[0] not in position or extras.get(row[0], (None,))[0] != row[1] for row in fresh
    ):
        return None
    inputs = entry.inputs
    shown = {pk: display for display, pk in inputs.pk_of.items()}
    memories = list(inputs.memories)
    for row in fresh:
        edited = ledger_memory(row, shown, identity)
        memories[position[row[0]]] = edited
    return replace(inputs, memories=memories)
