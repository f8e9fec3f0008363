"""Read a project's memories and composites as rows, and make the ledger's inputs of them.

Memories are given to the ledger under the id the agent sees (`Memory.display_id`: the
upstream id of a memory synced from a magic-context store, else ours), so a synced store's
plugin preview carries the very ids the plugin would render. A memory made here whose id is
already some synced memory's upstream id is shown under the next free id above them all,
which is the id the upstream store would give it; `LedgerInputs.renumbered` lists them.

Three queries read a project whatever its size.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.ledger import LedgerComposite, LedgerMemory
from memadmin.core.process_cache import ProcessCache
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

FETCH_CHUNK = 2000  # rows per fetch: Django's default of 100 costs more than the rows themselves
MEMORY_FIELDS = (
    "id",
    "upstream_id",
    "category",
    "content",
    "status",
    "importance",
    "expires_at",
    "superseded_by_id",
    "last_seen_at",
    "verified_at",
    "updated_at",
    # What the plugin's row reader checks (core.ledger.reader).
    "scope",
    "source_type",
    "verification_status",
    "shareable",
    "first_seen_at",
    "created_at",
    # The content's digest, kept with its size (`MemorySize`, a LEFT JOIN: None for a row
    # without one): the key of the line's stored token count (ledger.count_cache).
    "size__content_digest",
)


@dataclass(frozen=True)
class LedgerInputs:
    """A project's memories and composites in the ledger's terms (ids are display ids).

    `pk_of` maps each display id back to the memory's primary key; `renumbered` maps the
    primary key of each memory shown under another id to that id.
    """

    memories: list[LedgerMemory]
    composites: list[LedgerComposite]
    pk_of: dict[int, int]
    renumbered: dict[int, int] = field(default_factory=dict)

    @cached_property
    def by_id(self) -> dict[int, LedgerMemory]:
        """Return the memories by display id (made once)."""
        return {memory.id: memory for memory in self.memories}


def display_ids(rows: Sequence[tuple[int, int | None]]) -> tuple[dict[int, int], dict[int, int]]:
    """Return (display id by pk, renumbered) for (pk, upstream id) pairs.

    A memory keeps its upstream id when it has one and its pk otherwise, unless that pk is
    some other memory's upstream id: then it takes the next id above every id in use.
    """
    upstream = {upstream_id for _, upstream_id in rows if upstream_id is not None}
    display: dict[int, int] = {}
    clashing = []
    for pk, upstream_id in rows:
        if upstream_id is not None:
            display[pk] = upstream_id
        elif pk in upstream:
            clashing.append(pk)
        else:
            display[pk] = pk
    renumbered = {}
    next_free = max(display.values(), default=0) + 1
    for pk in sorted(clashing):
        display[pk] = renumbered[pk] = next_free
        next_free += 1
    return display, renumbered


def memory_rows(project: Project, pks: Sequence[int] | None = None) -> list[tuple]:
    """Return the project's memory rows (MEMORY_FIELDS), all of them or those of `pks`.

    The database hands out a new object for every value; a category, a status, a scope, a
    source type and a verification status are each kept once (a process keeps a project's
    rows: at 98,000 memories that is some 30 MB less), and a first-seen time equal to the
    creation time (as upstream writes a memory) is the same number object.
    """
    memories = Memory.objects.filter(project=project)
    if pks is not None:
        memories = memories.filter(pk__in=pks)
    rows = memories.order_by().values_list(*MEMORY_FIELDS).iterator(chunk_size=FETCH_CHUNK)
    once = shared_words.get(
        "words", None, lambda kept: {}, still=lambda words: len(words) <= SHARED_WORDS_LIMIT
    ).setdefault
    return [
        (
            pk,
            up,
            once(cat, cat),
            text,
            once(st, st),
            imp,
            exp,
            sup,
            seen,
            ver,
            upd,
            once(sc, sc),
            once(src, src),
            once(vs, vs),
            share,
            made if first == made and type(first) is type(made) else first,
            made,
            digest,
        )
        for (
            pk,
            up,
            cat,
            text,
            st,
            imp,
            exp,
            sup,
            seen,
            ver,
            upd,
            sc,
            src,
            vs,
            share,
            first,
            made,
            digest,
        ) in rows
    ]


# The words memory rows repeat (categories, statuses, scopes...), each kept once per process.
SHARED_WORDS_LIMIT = 10_000
shared_words: ProcessCache[dict] = ProcessCache("repeated words of memory rows")


def composite_rows(project: Project) -> tuple[list[tuple], list[tuple]]:
    """Return the project's composites (id, type, head) and members (composite, member)."""
    members = list(
        CompositeMember.objects.filter(composite__project=project)
        .order_by("composite_id", "position", "id")
        .values_list("composite_id", "member_id")
        .iterator(chunk_size=FETCH_CHUNK)
    )
    composites = list(
        Composite.objects.filter(project=project)
        .order_by()
        .values_list("id", "type", "head_id")
        .iterator(chunk_size=FETCH_CHUNK)
    )
    return composites, members


def ledger_memory(row: tuple, display: dict[int, int], identity: str) -> LedgerMemory:
    """Return a memory row (MEMORY_FIELDS) of a project as the ledger sees it, by display id."""
    (
        pk,
        _upstream_id,
        category,
        content,
        status,
        importance,
        expires_at,
        superseded_by,
        last_seen_at,
        verified_at,
        updated_at,
        scope,
        source_type,
        verification_status,
        shareable,
        first_seen_at,
        created_at,
        content_digest,
    ) = row
    return LedgerMemory(
        display[pk],
        category,
        content,
        status,
        importance,
        expires_at,
        superseded_by if superseded_by is None else display.get(superseded_by, superseded_by),
        last_seen_at,
        verified_at,
        updated_at,
        None,
        scope,
        source_type,
        verification_status,
        int(shareable),
        identity,
        first_seen_at,
        created_at,
        (),
        content_digest,
    )


def memory_row(memory: LedgerMemory, pk: int, extras: tuple | None) -> tuple:
    """Return the memory row (MEMORY_FIELDS) `ledger_memory` made `memory` of, given its
    primary key and `row_extras` (None: no upstream id, superseded by none)."""
    upstream_id, superseded_by = extras or (None, None)
    return (
        pk,
        upstream_id,
        memory.category,
        memory.content,
        memory.status,
        memory.importance,
        memory.expires_at,
        superseded_by,
        memory.last_seen_at,
        memory.verified_at,
        memory.updated_at,
        memory.scope,
        memory.source_type,
        memory.verification_status,
        memory.shareable,
        memory.first_seen_at,
        memory.created_at,
        memory.content_digest,
    )


def row_extras(rows: Iterable[tuple]) -> dict[int, tuple]:
    """Return, by primary key, the (upstream id, superseded by) of each memory row that has
    either: what its ledger memory keeps under display ids, or not at all."""
    return {row[0]: (row[1], row[7]) for row in rows if row[1] is not None or row[7] is not None}


def inputs_from_rows(
    rows: Sequence[tuple], composites: Sequence[tuple], members: Sequence[tuple], *, identity: str
) -> LedgerInputs:
    """Return the ledger's inputs made from memory, composite and member rows of a project."""
    display, renumbered = display_ids([(row[0], row[1]) for row in rows])
    memories = [ledger_memory(row, display, identity) for row in rows]
    members_of: dict[int, list[int]] = {}
    for composite_id, member_id in members:
        if member_id in display:
            members_of.setdefault(composite_id, []).append(display[member_id])
    ledger_composites = [
        LedgerComposite(
            id=pk, type=type, head_id=display[head_id], member_ids=tuple(members_of.get(pk, ()))
        )
        for pk, type, head_id in composites
        if head_id in display
    ]
    return LedgerInputs(
        memories=memories,
        composites=ledger_composites,
        pk_of={shown: pk for pk, shown in display.items()},
        renumbered=renumbered,
    )


def ledger_inputs(project: Project) -> LedgerInputs:
    """Return the project's memories (every status) and composites, in three queries."""
    return inputs_from_rows(
        memory_rows(project), *composite_rows(project), identity=project.identity
    )
