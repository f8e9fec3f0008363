"""What applying suggestions does to the injection at a budget, before anything is written.

The store after is built in memory: each suggestion's header a new memory (in its category,
as important as the most important memory it covers), each monolith's details new memories
and the monolith itself gone (archived), each suggestion one composite headed by its header.
Before is the project as it is, in ``before_mode`` (pack mode: the plugin's selection, the
categories in the pack's order); after is headers mode, the proposal's table of contents.

Coverage here is honest: the share of the project's live memories (each one counted once,
as it is before) whose content the agent reaches: injected, or a detail listed under an
injected header. A fragmented monolith counts as reached when its header is injected.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from memadmin.core.ledger import (
    LedgerComposite,
    LedgerMemory,
    Mode,
    TokenCounter,
    assemble,
)

from .model import Suggestion

LIVE = ("active", "permanent")


@dataclass(frozen=True, slots=True)
class Effect:
    """Coverage before and after at one budget; ``live`` counts the project's live memories."""

    budget: int
    live: int
    before_injected: int
    before_reached: int
    after_injected: int
    after_reached: int
    before_tokens: int
    after_tokens: int

    @property
    def before_share(self) -> float:
        return self.before_reached / self.live if self.live else 1.0

    @property
    def after_share(self) -> float:
        return self.after_reached / self.live if self.live else 1.0

    @property
    def gain(self) -> float:
        """Return after / before coverage (infinite when nothing was reached before)."""
        if not self.before_reached:
            return float("inf") if self.after_reached else 1.0
        return self.after_reached / self.before_reached

    def to_json(self) -> dict:
        return {
            "budget": self.budget,
            "live": self.live,
            "before": {
                "injected": self.before_injected,
                "reached": self.before_reached,
                "share": self.before_share,
                "tokens": self.before_tokens,
            },
            "after": {
                "injected": self.after_injected,
                "reached": self.after_reached,
                "share": self.after_share,
                "tokens": self.after_tokens,
            },
        }


def effect_of(
    memories: Sequence[LedgerMemory],
    composites: Sequence[LedgerComposite],
    suggestions: Sequence[Suggestion],
    *,
    budget: int,
    counter: TokenCounter,
    now_ms: int,
    before_mode: Mode = "pack",
) -> Effect:
    """Return the coverage of the project at ``budget`` before and after the suggestions."""
    live_ids = {m.id for m in memories if _live(m, now_ms)}
    before = assemble(
        memories, composites, budget=budget, counter=counter, mode=before_mode, now_ms=now_ms
    )
    before_reached = {row.memory_id for row in before.rows if row.reachable} & live_ids
    after_memories, after_composites, header_of_source = after_applying(
        memories, composites, suggestions, now_ms
    )
    after = assemble(
        after_memories,
        after_composites,
        budget=budget,
        counter=counter,
        mode="headers",
        now_ms=now_ms,
    )
    reachable = {row.memory_id for row in after.rows if row.reachable}
    injected = set(after.injected_ids)
    after_reached = {
        memory_id
        for memory_id in live_ids
        if memory_id in reachable
        or (memory_id in header_of_source and header_of_source[memory_id] in injected)
    }
    return Effect(
        budget=budget,
        live=len(live_ids),
        before_injected=len(before.injected_ids),
        before_reached=len(before_reached),
        after_injected=len(injected),
        after_reached=len(after_reached),
        before_tokens=before.used_tokens,
        after_tokens=after.used_tokens,
    )


def _live(memory: LedgerMemory, now_ms: int) -> bool:
    return memory.status in LIVE and (memory.expires_at is None or memory.expires_at > now_ms)


def after_applying(memories, composites, suggestions, now_ms):
    """Return the memories and composites after the suggestions, and each monolith's header.

    New memories take the ids after the largest, in the suggestions' order, so suggestions
    made on this result (the themes over the new headers) name the same ids when the two
    rounds are applied together.
    """
    by_id = {m.id: m for m in memories}
    next_id = max(by_id, default=0) + 1
    next_composite = max((c.id for c in composites), default=0) + 1
    replaced: set[int] = set()
    added: list[LedgerMemory] = []
    new_composites: list[LedgerComposite] = []
    header_of_source: dict[int, int] = {}
    for suggestion in suggestions:
        covered = [by_id[i] for i in suggestion.member_ids if i in by_id]
        if suggestion.source_id is not None and suggestion.source_id in by_id:
            covered.append(by_id[suggestion.source_id])
        if not covered:
            continue
        model = covered[0]
        importance = max((m.importance or 0 for m in covered), default=0) or model.importance
        header_id = next_id
        next_id += 1
        added.append(
            _new(model, header_id, suggestion.category, suggestion.header, importance, now_ms)
        )
        member_ids = []
        for detail in suggestion.details:
            if detail.memory_id is not None:
                member_ids.append(detail.memory_id)
                continue
            added.append(_new(model, next_id, suggestion.category, detail.text, importance, now_ms))
            member_ids.append(next_id)
            next_id += 1
        if suggestion.source_id is not None:
            replaced.add(suggestion.source_id)
            header_of_source[suggestion.source_id] = header_id
        new_composites.append(
            LedgerComposite(next_composite, suggestion.composite_type, header_id, tuple(member_ids))
        )
        next_composite += 1
    kept = [m for m in memories if m.id not in replaced]
    return [*kept, *added], [*composites, *new_composites], header_of_source


def _new(model: LedgerMemory, memory_id, category, content, importance, now_ms) -> LedgerMemory:
    return model._replace(
        id=memory_id,
        category=category,
        content=content,
        status="active",
        importance=importance,
        expires_at=None,
        superseded_by=None,
        updated_at=now_ms,
        unread=(),
        content_digest=None,
    )
