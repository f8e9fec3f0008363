"""Render the three prompt sites that restate a project's categories, from one set of data.

The inputs are exactly:

- ``categories``: the project's categories, each with ``name``, ``priority``, ``legacy``,
  ``maps_to`` and its *effective* ``criteria`` (the pack default, or the stored override).
  ``CategorySpec`` fits; ``effective_categories`` builds them from a pack and overrides.
  Input order does not matter: categories are rendered by priority, then name.
- ``routing_test``: the pack's cross-category routing test.

Nothing else (no clock, no environment, no pack version) reaches the text, so the same
inputs always give the same texts and the same ``surface_hash``.
"""

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Protocol

from memadmin.core.packs import CategorySpec, Criteria, PackSpec

HISTORIAN = "historian"
CURATE = "curate"
TOOL_DESCRIPTION = "tool_description"
SITES = (HISTORIAN, CURATE, TOOL_DESCRIPTION)

EXAMPLE_IDS = (12, 40)


class PromptCategory(Protocol):
    name: str
    priority: int
    legacy: bool
    maps_to: str | None
    criteria: Criteria


def effective_categories(
    pack: PackSpec, overrides: Mapping[str, Criteria]
) -> tuple[CategorySpec, ...]:
    """Return the pack's categories with each overridden category's criteria replaced."""
    unknown = sorted(set(overrides) - set(pack.names()))
    if unknown:
        raise ValueError(f"overrides name categories not in pack {pack.name}: {unknown}")
    return tuple(
        dataclasses.replace(spec, criteria=overrides.get(spec.name, spec.criteria))
        for spec in pack.categories
    )


def _ranked(categories: Iterable[PromptCategory]) -> list[PromptCategory]:
    ranked = sorted(categories, key=lambda c: (c.priority, c.name))
    if not any(not c.legacy for c in ranked):
        raise ValueError("at least one writable (non-legacy) category is required")
    return ranked


def _writable(ranked: list[PromptCategory]) -> list[PromptCategory]:
    return [c for c in ranked if not c.legacy]


def _legacy(ranked: list[PromptCategory]) -> list[PromptCategory]:
    return [c for c in ranked if c.legacy]


def _criteria_section(category: PromptCategory) -> list[str]:
    criteria = category.criteria
    lines = [f"### {category.name}", f"Test: {criteria.test_question}", criteria.definition]
    if criteria.positive_examples:
        lines.append("Belongs here:")
        lines += [f"- {example}" for example in criteria.positive_examples]
    if criteria.negative_examples:
        lines.append("Does not belong here:")
        lines += [f"- {item.example} ({item.reason})" for item in criteria.negative_examples]
    if criteria.exclusions:
        lines.append("Never record:")
        lines += [f"- {exclusion}" for exclusion in criteria.exclusions]
    if criteria.hard_stop:
        lines.append(f"HARD STOP: {criteria.hard_stop}")
    return lines


def render_historian(categories: Iterable[PromptCategory], routing_test: str) -> str:
    """Return the historian's category section: every writable criteria, then the contract."""
    ranked = _ranked(categories)
    writable = _writable(ranked)
    lines = [
        "## Facts to keep",
        "Record only durable facts that will still matter in later sessions. "
        "File each fact under exactly one of these categories.",
    ]
    for category in writable:
        lines += ["", *_criteria_section(category)]
    lines += ["", "## Routing", routing_test]
    legacy = _legacy(ranked)
    if legacy:
        names = ", ".join(c.name for c in legacy)
        lines += ["", f"Legacy categories are read-only; never use them as tags: {names}."]
    lines += [
        "",
        "## Output contract",
        "Write the facts in this exact format: one block per category that has facts, "
        "one fact per bullet, tags exactly as shown. Leave out categories without facts.",
        "<facts>",
    ]
    for category in writable:
        lines += [f"<{category.name}>", "* one fact per bullet", f"</{category.name}>"]
    lines += ["</facts>", "Allowed tags: " + ", ".join(c.name for c in writable) + "."]
    return "\n".join(lines) + "\n"


def render_curate(categories: Iterable[PromptCategory], routing_test: str) -> str:
    """Return the curate prompt's taxonomy: one line per category, then the legacy mapping."""
    ranked = _ranked(categories)
    lines = ["## Categories, in priority order"]
    lines += [f"- {c.name}: {c.criteria.test_question}" for c in _writable(ranked)]
    legacy = _legacy(ranked)
    if legacy:
        lines += ["", "## Legacy categories (read-only; move their memories as shown)"]
        lines += [f"- {c.name} -> {c.maps_to}" for c in legacy]
    lines += ["", "## Routing", routing_test]
    return "\n".join(lines) + "\n"


def _example_fact(writable: list[PromptCategory]) -> tuple[str, str]:
    """Return (category, fact): the first positive example of the first category with one."""
    for category in writable:
        if category.criteria.positive_examples:
            return category.name, category.criteria.positive_examples[0]
    return writable[0].name, "One durable fact."


def _call(**arguments: object) -> str:
    return json.dumps(arguments, ensure_ascii=False)


def render_tool_description(categories: Iterable[PromptCategory], routing_test: str) -> str:
    """Return the ctx_memory tool description: the category enum and one example per action.

    ``routing_test`` is accepted for a uniform signature and is not part of this text.
    """
    writable = _writable(_ranked(categories))
    category, fact = _example_fact(writable)
    first, second = EXAMPLE_IDS
    lines = [
        "Read and maintain the project's long-term memories.",
        "",
        "category: one of " + " | ".join(c.name for c in writable) + ".",
        "",
        "Actions:",
        "- write(category, content): store one new fact.",
        "  " + _call(action="write", category=category, content=fact),
        "- update(ids=[one id], content[, category]): rewrite one memory, optionally moving it.",
        "  " + _call(action="update", ids=[first], content=fact),
        "- archive(ids=[...], reason): retire memories that are wrong or obsolete.",
        "  " + _call(action="archive", ids=[first], reason=f"Superseded by #{second}."),
        "- merge(ids=[two or more], content): combine memories of one category into one.",
        "  " + _call(action="merge", ids=[first, second], content=fact),
        "- get(ids=[1 to 20 ids]): read memories by id.",
        "  " + _call(action="get", ids=[first, second]),
    ]
    return "\n".join(lines) + "\n"


def render_all(categories: Iterable[PromptCategory], routing_test: str) -> dict[str, str]:
    """Return the three texts keyed by site name, in the order of SITES."""
    categories = tuple(categories)
    return {
        HISTORIAN: render_historian(categories, routing_test),
        CURATE: render_curate(categories, routing_test),
        TOOL_DESCRIPTION: render_tool_description(categories, routing_test),
    }


def surface_hash(texts: Mapping[str, str]) -> str:
    """Return the SHA-256 hex digest of the three texts, taken in SITES order.

    Each text is framed by its site name and its length, so no shift of text from one
    site to another can give the same digest.
    """
    digest = hashlib.sha256()
    for site in SITES:
        body = texts[site].encode("utf-8")
        digest.update(f"{site}\n{len(body)}\n".encode())
        digest.update(body)
        digest.update(b"\n")
    return digest.hexdigest()
