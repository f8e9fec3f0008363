"""Everything the structure assistant proposes for one project's memories."""

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import NamedTuple

from memadmin.core.ledger import TokenCounter

from .drafting import HEADER_TOKEN_LIMIT, draft_family_header, draft_header
from .families import families
from .model import Detail, Suggestion
from .monoliths import MIN_TOKENS, monolith_suggestion

PROGRESS_EVERY = 1000


class StructureMemory(NamedTuple):
    """A live memory as the assistant sees it. ``grouped``: already a composite's head or member."""

    id: int
    category: str
    content: str
    tokens: int
    grouped: bool = False


def suggest(
    memories: Iterable[StructureMemory],
    *,
    counter: TokenCounter,
    min_tokens: int = MIN_TOKENS,
    header_limit: int = HEADER_TOKEN_LIMIT,
    categories: Iterable[str] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[Suggestion]:
    """Return the monoliths to fragment, then the families to group, each with its header.

    Memories already in a composite are left alone. ``categories``, when given, are the ones
    a header may be written in (the pack's); others are left alone too. ``progress``, when
    given, is told (phase, done, total) as the work goes: "monoliths" by memory, every
    ``PROGRESS_EVERY``, then "families" by category.
    """
    report = progress or (lambda phase, done, total: None)
    allowed = set(categories) if categories is not None else None
    found: list[Suggestion] = []
    small: dict[str, list[StructureMemory]] = defaultdict(list)
    ordered = sorted(memories, key=lambda m: m.id)
    for done, memory in enumerate(ordered):
        if done % PROGRESS_EVERY == 0:
            report("monoliths", done, len(ordered))
        if memory.grouped or (allowed is not None and memory.category not in allowed):
            continue
        if memory.tokens >= min_tokens:
            suggestion = monolith_suggestion(
                memory.id,
                memory.category,
                memory.content,
                counter=counter,
                header_limit=header_limit,
            )
            if suggestion is not None:
                found.append(suggestion)
                continue
        small[memory.category].append(memory)
    for done, category in enumerate(sorted(small)):
        report("families", done, len(small))
        members = small[category]
        for indexes, subject in families([m.content for m in members]):
            group = [members[i] for i in indexes]
            texts = [m.content for m in group]
            header = draft_family_header(
                texts, counter=counter, limit=header_limit
            ) or draft_header(subject, texts, counter=counter, noun="memories", limit=header_limit)
            # The key changes when a member or its text does: a page showing an older draft
            # is refused when applied.
            seen = "\0".join(f"{m.id}:{m.content}" for m in group)
            found.append(
                Suggestion(
                    key=f"family:{category}:{hashlib.sha256(seen.encode()).hexdigest()[:12]}",
                    kind="family",
                    category=category,
                    header=header,
                    header_tokens=counter.count(header),
                    details=tuple(Detail(m.content, m.id) for m in group),
                )
            )
    return found
