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
"""

from collections.abc import Iterable

from .coverage import coverage_of
from .graph import CompositeIndex, top_level
from .headers import details_suffix
from .model import (
    BUDGET_MAX,
    BUDGET_MIN,
    LAZY_DETAIL,
    MODES,
    OVER_BUDGET,
    TIE_BREAKS,
    LedgerComposite,
    LedgerError,
    LedgerMemory,
    LedgerResult,
    LedgerRow,
    Mode,
    ModeComparison,
    TieBreak,
    TokenCounter,
)
from .ordering import ineligible_reason, selection_order
from .render import WRAPPER_TEXT, category_sort_key, category_tags_text, memory_line, render_block


def _validate(budget: int, mode: str, tie_break: str) -> None:
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


def _index_by_id(memories: list[LedgerMemory]) -> dict[int, LedgerMemory]:
    by_id: dict[int, LedgerMemory] = {}
    for memory in memories:
        if memory.id in by_id:
            raise LedgerError(f"Memory #{memory.id} is given twice; ids must be unique.")
        by_id[memory.id] = memory
    return by_id


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
    _validate(budget, mode, tie_break)
    memories = list(memories)
    by_id = _index_by_id(memories)
    index = CompositeIndex(composites, by_id)

    candidates: list[LedgerMemory] = []
    reasons = {}
    for memory in memories:
        reason = ineligible_reason(memory, now_ms)
        if reason is None:
            candidates.append(memory)
        else:
            reasons[memory.id] = reason
    selection = selection_order(candidates, tie_break)
    details = index.eligible_details({memory.id for memory in candidates})

    headers_mode = mode == "headers"
    if headers_mode:
        roots = top_level([memory.id for memory in selection], details)
        competitors = [memory for memory in selection if memory.id in roots]
    else:
        competitors = selection

    def line_of(memory: LedgerMemory) -> str:
        line = memory_line(memory.id, memory.content, memory.source_name)
        if headers_mode and memory.id in details:
            line += details_suffix(details[memory.id])
        return line

    count = counter.count
    wrapper_tokens = count(WRAPPER_TEXT)
    used = wrapper_tokens
    tag_costs: dict[str, int] = {}
    by_category: dict[str, int] = {}
    admitted: list[tuple[str, int, str]] = []
    tried: list[tuple[LedgerMemory, int, int, bool]] = []
    for memory in competitors:
        line = line_of(memory)
        cost = count(line + "\n")
        category = memory.category
        if category not in by_category:
            tags = tag_costs.get(category)
            if tags is None:
                tags = tag_costs[category] = count(category_tags_text(category))
            cost += tags
        fits = used + cost <= budget
        if fits:
            used += cost
            by_category[category] = by_category.get(category, 0) + cost
            admitted.append((category, memory.id, line))
        tried.append((memory, cost, used, fits))

    injected_ids = [memory_id for _, memory_id, _ in admitted]
    coverage, reachable = coverage_of(mode, injected_ids, len(candidates), details)

    rows = [
        LedgerRow(
            memory_id=memory.id,
            kind=index.kind(memory.id),
            category=memory.category,
            tokens=cost,
            running_total=running_total,
            injected=fits,
            reason=None if fits else OVER_BUDGET,
            order=rank,
            reachable=memory.id in reachable,
            header_ids=index.heads_of.get(memory.id, ()),
            detail_ids=details.get(memory.id, ()),
        )
        for rank, (memory, cost, running_total, fits) in enumerate(tried, start=1)
    ]
    competing = {memory.id for memory in competitors}
    for memory in sorted(memories, key=lambda memory: memory.id):
        if memory.id in competing:
            continue
        rows.append(
            LedgerRow(
                memory_id=memory.id,
                kind=index.kind(memory.id),
                category=memory.category,
                tokens=count(line_of(memory) + "\n"),
                running_total=None,
                injected=False,
                reason=reasons.get(memory.id, LAZY_DETAIL),
                order=None,
                reachable=memory.id in reachable,
                header_ids=index.heads_of.get(memory.id, ()),
                detail_ids=details.get(memory.id, ()),
            )
        )

    return LedgerResult(
        rendered=render_block(admitted),
        rows=rows,
        used_tokens=used if admitted else 0,
        budget=budget,
        counter_name=counter.name,
        mode=mode,
        tie_break=tie_break,
        wrapper_tokens=wrapper_tokens,
        coverage=coverage,
        by_category={
            category: by_category[category]
            for category in sorted(by_category, key=category_sort_key)
        },
    )


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
    memories = list(memories)
    composites = list(composites)
    options = {"budget": budget, "counter": counter, "now_ms": now_ms, "tie_break": tie_break}
    return ModeComparison(
        plugin=assemble(memories, composites, mode="plugin", **options),
        headers=assemble(memories, composites, mode="headers", **options),
    )
