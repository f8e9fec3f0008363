"""Assemble a project's ledger previews, from the prepared store this process keeps.

The project's rows and the ledger's inputs made of them are read in `inputs` (three
queries whatever its size); `prepared_cache` keeps them prepared while the store version
and the clock allow, so a page shown again, or at another budget, reads one row.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Count, QuerySet

from memadmin.core.ledger import (
    BUDGET_MAX,
    BUDGET_MIN,
    LedgerError,
    LedgerResult,
)
from memadmin.core.ledger.model import MODES, TIE_BREAKS, Mode, TieBreak
from memadmin.memories.models import Project

from .counters import CounterChoice
from .inputs import (  # noqa: F401  (the ledger's readers import them from here)
    FETCH_CHUNK,
    MEMORY_FIELDS,
    LedgerInputs,
    composite_rows,
    display_ids,
    inputs_from_rows,
    ledger_inputs,
    memory_rows,
)
from .prepared_cache import prepared_for


@dataclass(frozen=True, slots=True)
class LedgerPreview:
    """One project assembled in one or both modes with the same counter, budget and time."""

    inputs: LedgerInputs
    results: dict[str, LedgerResult]
    counter: CounterChoice
    counted: int = 0

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
    if not entry.inputs.memories:
        return LedgerPreview(inputs=entry.inputs, results={}, counter=counter)
    results, counted = entry.assemble(
        counter=counter.counter, budget=budget, modes=modes, tie_break=tie_break
    )
    return LedgerPreview(inputs=entry.inputs, results=results, counter=counter, counted=counted)
