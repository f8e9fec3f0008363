"""Assemble a project's ledger previews, from the prepared store this process keeps.

The project's rows and the ledger's inputs made of them are read in `inputs` (three
queries whatever its size); `prepared_cache` keeps them prepared while the store version
and the clock allow, so a page shown again, or at another budget, reads one row.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db.models import Count, QuerySet

from memadmin.core.ledger import (
    BUDGET_MAX,
    BUDGET_MIN,
    LedgerError,
    LedgerResult,
    MemberShare,
    ReadStore,
    member_shares,
    read_for_modes,
)
from memadmin.core.ledger.model import MODES, TIE_BREAKS, Mode, TieBreak
from memadmin.projects.models import Project

from .counters import CounterChoice
from .inputs import LedgerInputs, ledger_inputs
from .plugin_context import LedgerWorkspace, ledger_workspace, pack_categories, with_unread
from .prepared_cache import kept_prepared, prepared_for


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


def ledger_is_prepared(
    project: Project, *, now_ms: int, modes: Sequence[Mode] = ("plugin", "headers")
) -> bool:
    """Return True when this process keeps the project prepared as the store is now, each of
    `modes` read: its preview then reads no row, it only assembles (or reuses a result).

    One query (the store's markers), whatever the project's size.
    """
    entry = kept_prepared(project, now_ms=now_ms)
    return entry is not None and tuple(modes) in entry.reads


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

    The project comes prepared from this process's cache (`prepared_cache`) while the store
    version and the clock allow, so a budget move only runs the selection again. The count
    cache is the one write a read makes: it records facts about texts, not changes to the
    store, so it is not audited. Raise LedgerError, with nothing read or written, for a
    budget outside 500..20000, an unknown mode or tie-break.
    """
    refuse_bad_arguments(budget=budget, modes=modes, tie_break=tie_break)
    entry = prepared_for(project, now_ms=now_ms)
    inputs = entry.inputs
    if not inputs.memories:
        return LedgerPreview(inputs=inputs, results={}, counter=counter)
    reads, workspace = entry.reads_for(
        modes,
        lambda: _reads(
            project, inputs, modes=modes, now_ms=now_ms, previous=entry.previous_reads(modes)
        ),
    )
    results, counted = entry.assemble(
        reads, counter=counter.counter, budget=budget, modes=modes, tie_break=tie_break
    )
    return LedgerPreview(
        inputs=inputs,
        results=results,
        counter=counter,
        counted=counted,
        reads=reads,
        workspace=workspace,
    )


def _reads(
    project: Project,
    inputs: LedgerInputs,
    *,
    modes: Sequence[Mode],
    now_ms: int,
    previous: dict[str, ReadStore] | None = None,
):
    """Return each mode's read of the project, and its workspace.

    Each mode's plugin reads the rows its way; modes reading the same rows share one
    prepared store (graph, selection order, lines and counts). The other members' memories
    are added to `inputs.pk_of` under their display ids, where no memory of ours has one.
    """
    workspace = ledger_workspace(project)
    others = [ledger_inputs(member) for member in workspace.sharing]
    reads = read_for_modes(
        with_unread(project, inputs.memories),
        inputs.composites,
        modes=modes,
        now_ms=now_ms,
        pack_categories=pack_categories(project) if "pack" in modes else (),
        workspace=workspace.workspace,
        previous=previous,
        others=[
            memory
            for member, other in zip(workspace.sharing, others, strict=True)
            for memory in with_unread(member, other.memories)
        ],
    )
    for other in others:
        inputs.pk_of.update(
            {shown: pk for shown, pk in other.pk_of.items() if shown not in inputs.pk_of}
        )
    return reads, workspace
