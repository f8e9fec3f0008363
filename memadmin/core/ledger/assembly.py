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

from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import NamedTuple

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
    Reason,
    TieBreak,
    TokenCounter,
)
from .ordering import ineligible_reason, partition, selection_order
from .render import WRAPPER_TEXT, category_sort_key, category_tags_text, memory_lines, render_block


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
    by_id = {memory.id: memory for memory in memories}
    if len(by_id) < len(memories):
        seen: set[int] = set()
        for memory in memories:
            if memory.id in seen:
                raise LedgerError(f"Memory #{memory.id} is given twice; ids must be unique.")
            seen.add(memory.id)
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

    candidates, ineligible = partition(memories, now_ms)
    selection = selection_order(candidates, tie_break)
    details = index.eligible_details({memory.id for memory in candidates})

    if mode == "headers":
        roots = top_level([memory.id for memory in selection], details)
        competitors = [memory for memory in selection if memory.id in roots]
        resting = [memory for memory in selection if memory.id not in roots]
        suffixes = {head: details_suffix(ids) for head, ids in details.items() if ids}
    else:
        competitors, resting, suffixes = selection, [], {}
    reasons = {memory.id: ineligible_reason(memory, now_ms) for memory in ineligible}
    resting += ineligible
    resting.sort(key=attrgetter("id"))

    row = _row_maker(index, details)
    count = counter.count
    greedy = _select(competitors, memory_lines(competitors, suffixes), budget, count, row)
    coverage, reachable = coverage_of(mode, greedy.injected_ids, len(candidates), details)
    rows = greedy.rows
    if mode == "headers":
        # A competitor left out can still be a detail of an injected header (a ring).
        for competitor in rows:
            if not competitor.injected and competitor.memory_id in reachable:
                competitor.reachable = True

    rows.extend(
        row(
            memory,
            count(line + "\n"),
            None,
            reasons.get(memory.id, LAZY_DETAIL),
            None,
            memory.id in reachable,
        )
        for memory, line in zip(resting, memory_lines(resting, suffixes), strict=True)
    )
    return LedgerResult(
        rendered=render_block(greedy.admitted),
        rows=rows,
        used_tokens=greedy.used if greedy.admitted else 0,
        budget=budget,
        counter_name=counter.name,
        mode=mode,
        tie_break=tie_break,
        wrapper_tokens=greedy.wrapper_tokens,
        coverage=coverage,
        by_category={
            category: greedy.by_category[category]
            for category in sorted(greedy.by_category, key=category_sort_key)
        },
    )


MakeRow = Callable[[LedgerMemory, int, int | None, Reason | None, int | None, bool], LedgerRow]


def _row_maker(index: CompositeIndex, details: dict[int, tuple[int, ...]]) -> MakeRow:
    """Return a row builder that knows the composites.

    It takes (memory, tokens, running total, reason, order, reachable); a memory without
    a reason is injected.
    """
    kinds, heads_of = index.kinds, index.heads_of

    def row(memory, tokens, running_total, reason, order, reachable):
        memory_id = memory.id
        if memory_id not in kinds:
            return LedgerRow(
                memory_id,
                "standalone",
                memory.category,
                tokens,
                running_total,
                reason is None,
                reason,
                order,
                reachable,
            )
        return LedgerRow(
            memory_id,
            kinds[memory_id],
            memory.category,
            tokens,
            running_total,
            reason is None,
            reason,
            order,
            reachable,
            heads_of.get(memory_id, ()),
            details.get(memory_id, ()),
        )

    return row


class _Greedy(NamedTuple):
    rows: list[LedgerRow]
    admitted: list[tuple[str, int, str]]
    used: int
    wrapper_tokens: int
    by_category: dict[str, int]

    @property
    def injected_ids(self) -> list[int]:
        return [memory_id for _, memory_id, _ in self.admitted]


def _select(
    competitors: list[LedgerMemory],
    lines: list[str],
    budget: int,
    count: Callable[[str], int],
    row: MakeRow,
) -> _Greedy:
    """Admit the competitors greedily with skip, with upstream's additive accounting.

    Return a row per competitor, in turn (reachable when injected), and the (category, id,
    line) of every admitted memory.
    """
    wrapper_tokens = count(WRAPPER_TEXT)
    used = wrapper_tokens
    tag_costs: dict[str, int] = {}
    by_category: dict[str, int] = {}
    admitted: list[tuple[str, int, str]] = []
    rows: list[LedgerRow] = []
    for order, (memory, line) in enumerate(zip(competitors, lines, strict=True), start=1):
        cost = count(line + "\n")
        category = memory.category
        if category not in by_category:
            tags = tag_costs.get(category)
            if tags is None:
                tags = tag_costs[category] = count(category_tags_text(category))
            cost += tags
        if used + cost <= budget:
            used += cost
            by_category[category] = by_category.get(category, 0) + cost
            admitted.append((category, memory.id, line))
            rows.append(row(memory, cost, used, None, order, True))
        else:
            rows.append(row(memory, cost, used, OVER_BUDGET, order, False))
    return _Greedy(rows, admitted, used, wrapper_tokens, by_category)


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
