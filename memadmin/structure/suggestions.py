"""The structure assistant's suggestions for a project, read from memadmin's rows.

`structure_plan(project, ...)` reads the project's live memories and composites once, asks
`core.structure.suggest` what to fragment and what to group (headers only in the pack's
writable categories), and measures the effect of all of them at each budget. Nothing is written.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from memadmin.core.structure import (
    HEADER_TOKEN_LIMIT,
    Effect,
    StructureMemory,
    Suggestion,
    effect_of,
    suggest,
)
from memadmin.ledger.inputs import ledger_inputs
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import category_names

LIVE = ("active", "permanent")
# The budgets every suggestion page shows the effect at, beside the project's own.
SHOWN_BUDGETS = (1500, 4000)


@dataclass(frozen=True)
class StructurePlan:
    """Suggestions for a project and their effect, all applied, at each budget asked for.

    Ids are those the ledger shows (`pk_of` maps them to memadmin's primary keys).
    """

    suggestions: list[Suggestion]
    effects: list[Effect]
    header_limit: int
    pk_of: dict[int, int]


def structure_plan(
    project: Project,
    *,
    counter,
    budgets: Sequence[int],
    now_ms: int,
    header_limit: int = HEADER_TOKEN_LIMIT,
    progress=None,
) -> StructurePlan:
    """Return what the assistant suggests for the project, and its effect at each budget."""
    inputs = ledger_inputs(project)
    grouped: set[int] = set()
    members_of: dict[int, list[int]] = {}
    for composite in inputs.composites:
        grouped.add(composite.head_id)
        grouped.update(composite.member_ids)
        members_of.setdefault(composite.head_id, []).extend(composite.member_ids)
    content = {m.id: m.content for m in inputs.memories}
    members = {i for ids in members_of.values() for i in ids}
    # A category header: it heads details only and is no one's member (a theme may take it).
    details = {
        head: "\n".join(content[i] for i in ids if i in content)
        for head, ids in members_of.items()
        if head not in members and not any(i in members_of for i in ids)
    }
    live = [
        memory
        for memory in inputs.memories
        if memory.status in LIVE and (memory.expires_at is None or memory.expires_at > now_ms)
    ]
    texts = [m.content for m in live]
    count_many = getattr(counter, "count_many", None)
    counts = count_many(texts) if count_many else [counter.count(text) for text in texts]
    suggestions = suggest(
        [
            StructureMemory(m.id, m.category, m.content, tokens, m.id in grouped, details.get(m.id))
            for m, tokens in zip(live, counts, strict=True)
        ],
        counter=counter,
        header_limit=header_limit,
        categories=category_names(project, writable_only=True),
        progress=progress,
    )
    effects = [
        effect_of(
            inputs.memories,
            inputs.composites,
            suggestions,
            budget=budget,
            counter=counter,
            now_ms=now_ms,
        )
        for budget in budgets
    ]
    return StructurePlan(suggestions, effects, header_limit, inputs.pk_of)
