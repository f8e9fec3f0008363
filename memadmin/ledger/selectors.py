"""Read a project's memories and composites as the ledger sees them, and assemble previews.

Memories are given to the ledger under the id the agent sees (`Memory.display_id`: the
upstream id of a memory synced from a magic-context store, else ours), so a synced store's
plugin preview carries the very ids the plugin would render. A memory made here whose id is
already some synced memory's upstream id is shown under the next free id above them all,
which is the id the upstream store would give it; `LedgerInputs.renumbered` lists them.

Three queries read a project whatever its size, and one more reads every token count.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Count, QuerySet

from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.ledger import (
    BUDGET_MAX,
    BUDGET_MIN,
    LedgerComposite,
    LedgerError,
    LedgerMemory,
    LedgerResult,
    MemberShare,
    ReadStore,
    assemble_read,
    member_shares,
    read_for_modes,
)
from memadmin.core.ledger.model import MODES, TIE_BREAKS, Mode, TieBreak
from memadmin.memories.models import Memory, Project

from .count_cache import counts_for
from .counters import CounterChoice
from .plugin_context import LedgerWorkspace, ledger_workspace, pack_categories, with_unread

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
)


@dataclass(frozen=True, slots=True)
class LedgerInputs:
    """A project's memories and composites in the ledger's terms (ids are display ids).

    `pk_of` maps each display id back to the memory's primary key; `renumbered` maps the
    primary key of each memory shown under another id to that id.
    """

    memories: list[LedgerMemory]
    composites: list[LedgerComposite]
    pk_of: dict[int, int]
    renumbered: dict[int, int] = field(default_factory=dict)

    @property
    def by_id(self) -> dict[int, LedgerMemory]:
        """Return the memories by display id."""
        return {memory.id: memory for memory in self.memories}


@dataclass(frozen=True, slots=True)
class LedgerPreview:
    """One project assembled in one or more modes with the same counter, budget and time.

    `reads` holds each mode's rows as its plugin read them (see `core.ledger.as_plugin`);
    `workspace` the project's workspace, whose members' memories `inputs.pk_of` also maps.
    """

    inputs: LedgerInputs
    results: dict[str, LedgerResult]
    counter: CounterChoice
    counted: int = 0
    reads: dict[str, ReadStore] = field(default_factory=dict)
    workspace: LedgerWorkspace | None = None

    def member_shares(self, mode: str) -> list[MemberShare]:
        """Return what each workspace member contributes in that mode (empty when unshared)."""
        return member_shares(self.reads[mode], self.results[mode])

    @property
    def is_empty(self) -> bool:
        """Return True when the project has no memory at all."""
        return not self.inputs.memories


def refuse_bad_arguments(*, budget: int, modes: Sequence[str], tie_break: str) -> None:
    """Raise LedgerError for a budget outside 500..20000, an unknown mode or tie-break."""
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise LedgerError(f"The budget must be a whole number of tokens, not {budget!r}.")
    if not BUDGET_MIN <= budget <= BUDGET_MAX:
        raise LedgerError(
            f"The budget must be between {BUDGET_MIN} and {BUDGET_MAX} tokens, not {budget}."
        )
    for mode in modes:
        if mode not in MODES:
            raise LedgerError(f"Unknown mode {mode!r}: use one of {', '.join(MODES)}.")
    if tie_break not in TIE_BREAKS:
        raise LedgerError(f"Unknown tie-break {tie_break!r}: use one of {', '.join(TIE_BREAKS)}.")


def ledger_projects() -> QuerySet[Project]:
    """Return every project with its number of memories, by name."""
    return Project.objects.annotate(memory_count=Count("memories")).order_by("name")


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


def ledger_inputs(project: Project) -> LedgerInputs:
    """Return the project's memories (every status) and composites, in three queries."""
    rows = list(
        Memory.objects.filter(project=project)
        .order_by()
        .values_list(*MEMORY_FIELDS)
        .iterator(chunk_size=FETCH_CHUNK)
    )
    display, renumbered = display_ids([(row[0], row[1]) for row in rows])
    memories = [
        LedgerMemory(
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
            project.identity,
            first_seen_at,
            created_at,
        )
        for (
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
        ) in rows
    ]
    members: dict[int, list[int]] = {}
    for composite_id, member_id in (
        CompositeMember.objects.filter(composite__project=project)
        .order_by("composite_id", "position", "id")
        .values_list("composite_id", "member_id")
        .iterator(chunk_size=FETCH_CHUNK)
    ):
        if member_id in display:
            members.setdefault(composite_id, []).append(display[member_id])
    composites = [
        LedgerComposite(
            id=pk, type=type, head_id=display[head_id], member_ids=tuple(members.get(pk, ()))
        )
        for pk, type, head_id in Composite.objects.filter(project=project)
        .order_by()
        .values_list("id", "type", "head_id")
        .iterator(chunk_size=FETCH_CHUNK)
        if head_id in display
    ]
    return LedgerInputs(
        memories=memories,
        composites=composites,
        pk_of={shown: pk for pk, shown in display.items()},
        renumbered=renumbered,
    )


def ledger_preview(
    project: Project,
    *,
    budget: int,
    counter: CounterChoice,
    now_ms: int,
    modes: Sequence[Mode] = ("plugin", "headers"),
    tie_break: TieBreak = "recent",
) -> LedgerPreview:
    """Assemble the project in each mode; keep any token count made for the first time.

    The count cache is the one write a read makes: it records facts about texts, not
    changes to the store, so it is not audited. Raise LedgerError, with nothing read or
    written, for a budget outside 500..20000, an unknown mode or tie-break.
    """
    refuse_bad_arguments(budget=budget, modes=modes, tie_break=tie_break)
    inputs = ledger_inputs(project)
    if not inputs.memories:
        return LedgerPreview(inputs=inputs, results={}, counter=counter)
    # Each mode's plugin reads the rows its way; modes reading the same rows share one
    # prepared store (graph, selection order, lines and counts).
    workspace = ledger_workspace(project)
    others = [ledger_inputs(member) for member in workspace.sharing]
    reads = read_for_modes(
        with_unread(project, inputs.memories),
        inputs.composites,
        modes=modes,
        now_ms=now_ms,
        pack_categories=pack_categories(project) if "pack" in modes else (),
        workspace=workspace.workspace,
        others=[
            memory
            for member, other in zip(workspace.sharing, others, strict=True)
            for memory in with_unread(member, other.memories)
        ],
    )
    stores = list({id(read.store): read.store for read in reads.values()}.values())
    texts = (
        stores[0].texts()
        if len(stores) == 1
        else list(dict.fromkeys(text for prepared in stores for text in prepared.texts()))
    )
    cached, store = counts_for(counter.counter, texts)
    results = {
        mode: assemble_read(reads[mode], budget=budget, counter=cached, tie_break=tie_break)
        for mode in modes
    }
    counted = store.save()
    for other in others:
        inputs.pk_of.update(
            {shown: pk for shown, pk in other.pk_of.items() if shown not in inputs.pk_of}
        )
    return LedgerPreview(
        inputs=inputs,
        results=results,
        counter=counter,
        counted=counted,
        reads=reads,
        workspace=workspace,
    )
