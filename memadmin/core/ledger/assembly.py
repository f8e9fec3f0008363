"""Assemble a budgeted memory injection and account for every memory in it or out of it.

``plugin`` mode reproduces magic-context's injection: the candidates (active or permanent,
not expired) compete in selection order (see ``ordering``), greedily with skip: a memory
that does not fit is passed over and the next one is tried. The accounting is upstream's
additive one, a slight upper bound of the block's real count: the wrapper
``<project-memory>\\n</project-memory>`` is charged up front; a memory costs
``count(line + "\\n")``, plus ``count("<CAT>\\n</CAT>\\n")`` when it would be the first
admitted memory of its category; it is admitted when ``used + cost <= budget``.

``headers`` mode is Proposal 3's table of contents: only top-level memories compete (headers
that are no other header's detail, and memories under no header, see ``graph.top_level``),
with the same rules and accounting; details are never injected (reason "lazy detail") but a
header's line lists them (see ``headers``), which makes them reachable.

``pack`` mode competes as plugin mode does; its block renders the categories in the pack's
priority order (``priority``). Given a shared ``workspace``, the competitors are admitted in
its three phases instead (see ``workspace``). Reading rows the plugin's way, before any of
this, is ``reader``'s and ``fidelity``'s business.
"""

from collections.abc import Iterable
from functools import partial

from .coverage import coverage_of
from .model import (
    BUDGET_MAX,
    BUDGET_MIN,
    MODES,
    TIE_BREAKS,
    LedgerComposite,
    LedgerError,
    LedgerMemory,
    LedgerResult,
    Mode,
    ModeComparison,
    TieBreak,
    TokenCounter,
)
from .prepared import PreparedStore, count_all
from .render import (
    PRIORITY_CATEGORIES,
    WRAPPER_TEXT,
    category_sort_key,
    category_tags_text,
    render_block,
)
from .rows import Admission, LedgerRows
from .workspace import Workspace, admit_workspace


def validate(budget: int, mode: str, tie_break: str) -> None:
    """Raise LedgerError for a budget outside 500..20000, an unknown mode or tie-break."""
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise LedgerError(f"The budget must be a whole number of tokens, not {budget!r}.")
    if not BUDGET_MIN <= budget <= BUDGET_MAX:
        raise LedgerError(
            f"The budget must be between {BUDGET_MIN} and {BUDGET_MAX} tokens, not {budget}."
        )
    if mode not in MODES:
        raise LedgerError(f"Unknown mode {mode!r}: use one of {', '.join(MODES)}.")
    if tie_break not in TIE_BREAKS:
        raise LedgerError(f"Unknown tie-break {tie_break!r}: use one of {', '.join(TIE_BREAKS)}.")


def assemble(
    memories: Iterable[LedgerMemory],
    composites: Iterable[LedgerComposite] = (),
    *,
    budget: int,
    counter: TokenCounter,
    mode: Mode,
    now_ms: int,
    tie_break: TieBreak = "recent",
) -> LedgerResult:
    """Return the injection the memories yield at this budget, with a row for each memory.

    Raise LedgerError for a budget outside 500..20000, an unknown mode or tie-break, or a
    memory id given twice.
    """
    validate(budget, mode, tie_break)
    store = PreparedStore(memories, composites, now_ms=now_ms)
    return assemble_prepared(store, budget=budget, counter=counter, mode=mode, tie_break=tie_break)


def assemble_prepared(
    store: PreparedStore,
    *,
    budget: int,
    counter: TokenCounter,
    mode: Mode,
    tie_break: TieBreak = "recent",
    priority: tuple[str, ...] = PRIORITY_CATEGORIES,
    workspace: Workspace | None = None,
) -> LedgerResult:
    """Return ``assemble``'s result for a store already prepared (see ``prepare``).

    ``priority`` names the categories rendered first, in that order; ``workspace`` (when it
    is shared) admits in its three phases.
    """
    validate(budget, mode, tie_break)
    competitors, resting, categories = store.arranged(mode, tie_break)
    competitor_costs, resting_costs = store.arranged_costs(counter, mode, tie_break)
    wrapper_tokens, *tag_counts = count_all(
        counter, [WRAPPER_TEXT, *map(category_tags_text, categories)]
    )
    admit = _admit
    if workspace is not None and workspace.is_shared:
        admit = partial(admit_workspace, workspace=workspace)
    admission = admit(
        competitors,
        competitor_costs,
        budget=budget,
        start=wrapper_tokens,
        tag_costs=dict(zip(categories, tag_counts, strict=True)),
    )
    injected_ids = [competitors[position].id for position in admission.positions]
    coverage, reachable = coverage_of(mode, injected_ids, store.candidate_count, store.details)
    rows = LedgerRows(
        competitors + resting,
        competitor_costs + resting_costs,
        competing=len(competitors),
        admission=admission,
        reasons=store.reasons,
        reachable=reachable,
        index=store.index,
        details=store.details,
    )
    by_category: dict[str, int] = {}
    admitted = []
    for position in admission.positions:
        memory = competitors[position]
        category = memory.category
        tokens = competitor_costs[position]
        if admission.opened[category] == position:
            tokens += admission.tag_costs[category]
        by_category[category] = by_category.get(category, 0) + tokens
        admitted.append((category, memory.id, store.line_of(memory, mode)))
    return LedgerResult(
        rendered=render_block(admitted, priority),
        rows=rows,
        used_tokens=wrapper_tokens + sum(by_category.values()) if admitted else 0,
        budget=budget,
        counter_name=counter.name,
        mode=mode,
        tie_break=tie_break,
        wrapper_tokens=wrapper_tokens,
        coverage=coverage,
        by_category={
            category: by_category[category]
            for category in sorted(by_category, key=partial(category_sort_key, priority=priority))
        },
    )


def _admit(
    competitors: list[LedgerMemory],
    costs: list[int],
    *,
    budget: int,
    start: int,
    tag_costs: dict[str, int],
) -> Admission:
    """Admit the competitors greedily with skip, with upstream's additive accounting.

    A competitor is admitted when its cost (plus its category's tags, when it would open
    the category) fits in what the budget has left. Most of a large store does not fit
    even without tags, so that is checked first (tags never cost less than nothing).
    """
    left = budget - start
    used = start
    positions: list[int] = []
    totals: list[int] = []
    opened: dict[str, int] = {}
    for position, cost in enumerate(costs):
        if cost > left:
            continue
        category = competitors[position].category
        if category not in opened:
            cost += tag_costs[category]
            if cost > left:
                continue
            opened[category] = position
        left -= cost
        used += cost
        positions.append(position)
        totals.append(used)
    return Admission(positions, totals, start, opened, tag_costs)


def compare_modes(
    memories: Iterable[LedgerMemory],
    composites: Iterable[LedgerComposite] = (),
    *,
    budget: int,
    counter: TokenCounter,
    now_ms: int,
    tie_break: TieBreak = "recent",
) -> ModeComparison:
    """Return the store assembled in plugin mode and in headers mode at the same budget."""
    validate(budget, "plugin", tie_break)
    store = PreparedStore(memories, composites, now_ms=now_ms)
    options = {"budget": budget, "counter": counter, "tie_break": tie_break}
    return ModeComparison(
        plugin=assemble_prepared(store, mode="plugin", **options),
        headers=assemble_prepared(store, mode="headers", **options),
    )
