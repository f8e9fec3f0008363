"""Everything the structure assistant proposes for one project's memories."""

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import NamedTuple

from memadmin.core.ledger import TokenCounter

from .drafting import HEADER_TOKEN_LIMIT, draft_family_header, draft_header, header_subject
from .families import families
from .model import Detail, Suggestion
from .monoliths import MIN_TOKENS, monolith_suggestion

PROGRESS_EVERY = 1000


class StructureMemory(NamedTuple):
    """A live memory as the assistant sees it. ``grouped``: already a composite's head or member.

    ``details`` is set on a category header (it heads a composite of plain details and is no
    composite's member): its details' texts, joined, which a theme is found from.
    """

    id: int
    category: str
    content: str
    tokens: int
    grouped: bool = False
    details: str | None = None


# A theme groups this many category headers at least: the proposal's two-layer map.
THEME_MEMBERS = 2
THEME_MOST = 8
# Tighter than a family's: headers share a theme only when their subjects and details do.
THEME_DISTANCE = 0.6
# Words in more than this share of the headers (a service every header names) make no theme.
THEME_COMMON = 0.15
THEME_COMMON_FROM = 20


def suggest(
    memories: Iterable[StructureMemory],
    *,
    counter: TokenCounter,
    min_tokens: int = MIN_TOKENS,
    header_limit: int = HEADER_TOKEN_LIMIT,
    categories: Iterable[str] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[Suggestion]:
    """Return the monoliths to fragment, the families to group, each with its header, then
    the themes over category headers (the proposal's two-layer map: theme headers over category
    headers over details, never deeper).

    Memories already in a composite are left alone. ``categories``, when given, are the ones
    a header may be written in (the pack's); others are left alone too. ``progress``, when
    given, is told (phase, done, total) as the work goes: "monoliths" by memory, every
    ``PROGRESS_EVERY``, then "families" by category, then "themes".
    """
    report = progress or (lambda phase, done, total: None)
    allowed = set(categories) if categories is not None else None
    found: list[Suggestion] = []
    small: dict[str, list[StructureMemory]] = defaultdict(list)
    ordered = sorted(memories, key=lambda m: m.id)
    headers = [m for m in ordered if m.details is not None]
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
                found.append(replace(suggestion, tokens_now=memory.tokens))
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
            found.append(
                Suggestion(
                    key=_key(f"family:{category}", group),
                    kind="family",
                    category=category,
                    header=header,
                    header_tokens=counter.count(header),
                    details=tuple(Detail(m.content, m.id) for m in group),
                    tokens_now=sum(m.tokens for m in group),
                )
            )
    report("themes", 0, 1)
    found += _themes(headers, counter=counter, header_limit=header_limit, allowed=allowed)
    return found


def _key(prefix: str, group: list[StructureMemory]) -> str:
    """Return a group's key: it changes when a member or its text does, so a page showing an
    older draft is refused when applied."""
    seen = "\0".join(f"{m.id}:{m.content}" for m in group)
    return f"{prefix}:{hashlib.sha256(seen.encode()).hexdigest()[:12]}"


def _themes(headers: list[StructureMemory], *, counter, header_limit: int, allowed) -> list:
    """Return themes over the category headers, found from their details' words: each a
    theme header over headers from two categories or more."""
    themes = []
    texts = [f"{header_subject(h.content)}\n{h.details}" for h in headers]
    for indexes, subject in families(
        texts,
        least=THEME_MEMBERS,
        phrase=False,
        distance=THEME_DISTANCE,
        # Among a few headers no word is common to "nearly all" in that sense.
        common=THEME_COMMON if len(headers) >= THEME_COMMON_FROM else 1.0,
    ):
        group = [headers[i] for i in indexes]
        if len(group) > THEME_MOST:
            continue  # a theme over everything says nothing
        categories = [h.category for h in group]
        if len(set(categories)) < 2:
            continue  # one category's headers: a family of families, not a theme
        category = max(sorted(set(categories)), key=categories.count)
        if allowed is not None and category not in allowed:
            continue
        header = draft_header(
            f"Theme: {subject}",
            [header_subject(h.content) for h in group],
            counter=counter,
            noun="headers",
            limit=header_limit,
        )
        themes.append(
            Suggestion(
                key=_key("theme", group),
                kind="theme",
                category=category,
                header=header,
                header_tokens=counter.count(header),
                details=tuple(Detail(h.content, h.id) for h in group),
                tokens_now=sum(h.tokens for h in group),
            )
        )
    return themes
