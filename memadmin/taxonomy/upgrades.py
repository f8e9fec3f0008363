"""Plan a pack upgrade from plain data: what happens to names, defaults, overrides, memories.

The plan is computed before anything is written and printed for people to read; the
upgrade service applies it only when it holds no refusal. Nothing here touches the database.

An upgrade that keeps every name is *criteria-only*: defaults are updated, every override
is kept, and the overrides whose default moved are flagged. An upgrade that adds, removes or
renames names is a *migration event*: memories in a removed category must be told where to
go (``--map OLD=NEW``), or the upgrade is refused.
"""

import hashlib
import json
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field

from memadmin.core.packs import CategorySpec, PackSpec, criteria_from_dict, criteria_to_dict
from memadmin.core.prompts import render_all, surface_hash

from .criteria_fields import LABELS, changed_fields, field_text

NOTHING = "nothing to do"
CRITERIA_ONLY = "criteria only"
NAMES_CHANGED = "names changed"

PROPERTIES = ("priority", "ttl_days", "legacy", "maps_to")


@dataclass(frozen=True)
class CurrentCategory:
    """A category as the project holds it now."""

    name: str
    priority: int
    ttl_days: int | None
    legacy: bool
    maps_to: str  # "" when not legacy
    default: dict
    override: dict | None
    memory_count: int = 0


@dataclass(frozen=True)
class Collision:
    """A memory that would move onto an exact duplicate already in the target category."""

    memory: int
    old: str
    twin: int
    new: str


@dataclass(frozen=True)
class Move:
    old: str
    new: str
    memories: int


@dataclass(frozen=True)
class FlaggedOverride:
    """An override kept over a default that moved: the three texts, side by side."""

    name: str
    old_default: dict
    new_default: dict
    override: dict

    @property
    def fields(self) -> list[str]:
        """Return the fields in which the pack default moved."""
        return changed_fields(self.old_default, self.new_default)


@dataclass(frozen=True)
class PropertyChange:
    name: str
    field: str
    old: object
    new: object


@dataclass(frozen=True)
class UpgradePlan:
    old_pack: str
    new_pack: str
    same_file: bool
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    moves: tuple[Move, ...] = ()
    defaults_changed: tuple[str, ...] = ()  # not overridden: the text in force changes
    flagged: tuple[FlaggedOverride, ...] = ()
    properties: tuple[PropertyChange, ...] = ()
    dropped_overrides: tuple[str, ...] = ()
    refusals: tuple[str, ...] = ()
    surface_before: str = ""
    surface_after: str = ""
    mapping: dict[str, str] = field(default_factory=dict)
    old_digest: str = ""  # the SHA-256 of the installed pack file
    new_digest: str = ""  # the SHA-256 of the pack file upgraded to

    @property
    def kind(self) -> str:
        """Return NOTHING, CRITERIA_ONLY or NAMES_CHANGED."""
        if self.added or self.removed:
            return NAMES_CHANGED
        if self.same_file and not (self.defaults_changed or self.flagged or self.properties):
            return NOTHING
        return CRITERIA_ONLY

    @property
    def allowed(self) -> bool:
        """Return True if the upgrade may be applied."""
        return not self.refusals

    def fingerprint(self) -> str:
        """Return a digest of everything the plan says and of both pack files.

        A confirmation carries the fingerprint of the plan it showed; a plan made later that
        says anything else (other counts, names, texts, refusals or pack file) has another.
        """
        text = json.dumps(asdict(self), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def parse_mapping(pairs: Iterable[str]) -> dict[str, str]:
    """Return {OLD: NEW} from "OLD=NEW" strings, or raise ValueError naming the bad one."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        old, new = old.strip(), new.strip()
        if not sep or not old or not new:
            raise ValueError(f"--map {pair!r} is not of the form OLD=NEW")
        if old in mapping and mapping[old] != new:
            raise ValueError(f"--map names {old} twice ({mapping[old]} and {new})")
        mapping[old] = new
    return mapping


def _spec_of(category: CurrentCategory) -> CategorySpec:
    return CategorySpec(
        name=category.name,
        priority=category.priority,
        ttl_days=category.ttl_days,
        legacy=category.legacy,
        maps_to=category.maps_to or None,
        criteria=criteria_from_dict(category.override or category.default),
    )


def _surface(categories: Iterable[CategorySpec], routing_test: str) -> str:
    categories = tuple(categories)
    if not any(not c.legacy for c in categories):
        return ""
    return surface_hash(render_all(categories, routing_test))


def plan_upgrade(
    *,
    current: Iterable[CurrentCategory],
    old_routing_test: str,
    old_label: str,
    old_digest: str,
    spec: PackSpec,
    mapping: Mapping[str, str],
    collisions: Iterable[Collision] = (),
) -> UpgradePlan:
    """Return the plan for moving a project from its current categories to ``spec``."""
    current = {c.name: c for c in current}
    new_names = spec.names()
    writable = set(spec.writable_names())
    added = tuple(n for n in new_names if n not in current)
    removed = tuple(n for n in current if n not in new_names)
    refusals: list[str] = []

    for old, new in mapping.items():
        if old not in current:
            refusals.append(f"--map {old}={new}: {old} is not a category of this project.")
        elif old not in removed:
            refusals.append(
                f"--map {old}={new}: {old} stays in {spec.name} {spec.version}; "
                "--map only says where the memories of a removed category go."
            )
        if new not in writable:
            kind = "a legacy category" if new in new_names else "not a category"
            refusals.append(
                f"--map {old}={new}: {new} is {kind} of {spec.name} {spec.version}; "
                "memories can move only to a writable category of the new pack."
            )
    moves = []
    for name in removed:
        count = current[name].memory_count
        if name in mapping:
            moves.append(Move(name, mapping[name], count))
        elif count:
            refusals.append(
                f"{count} memor{'y' if count == 1 else 'ies'} in {name}, which "
                f"{spec.name} {spec.version} no longer defines: say where they go with "
                f"--map {name}=<category>."
            )
    for collision in collisions:
        refusals.append(
            f"Memory #{collision.memory} in {collision.old} is an exact duplicate of "
            f"#{collision.twin} in {collision.new}: edit or remove one of them first, "
            f"or map {collision.old} elsewhere."
        )

    defaults_changed, flagged, properties = [], [], []
    after: list[CategorySpec] = []
    for spec_category in spec.categories:
        new_default = criteria_to_dict(spec_category.criteria)
        held = current.get(spec_category.name)
        override = held.override if held else None
        if held is not None:
            if held.default != new_default:
                if override is None:
                    defaults_changed.append(held.name)
                else:
                    flagged.append(FlaggedOverride(held.name, held.default, new_default, override))
            for name in PROPERTIES:
                old_value = getattr(held, name)
                new_value = getattr(spec_category, name)
                if name == "maps_to":
                    new_value = new_value or ""
                if old_value != new_value:
                    properties.append(PropertyChange(held.name, name, old_value, new_value))
        criteria = criteria_from_dict(override) if override else spec_category.criteria
        after.append(
            CategorySpec(
                name=spec_category.name,
                priority=spec_category.priority,
                ttl_days=spec_category.ttl_days,
                legacy=spec_category.legacy,
                maps_to=spec_category.maps_to,
                criteria=criteria,
            )
        )
    return UpgradePlan(
        old_pack=old_label,
        new_pack=f"{spec.name} {spec.version}",
        same_file=old_digest == spec.digest,
        added=added,
        removed=removed,
        moves=tuple(moves),
        defaults_changed=tuple(defaults_changed),
        flagged=tuple(flagged),
        properties=tuple(properties),
        dropped_overrides=tuple(n for n in removed if current[n].override is not None),
        refusals=tuple(refusals),
        surface_before=_surface((_spec_of(c) for c in current.values()), old_routing_test),
        surface_after=_surface(after, spec.routing_test),
        mapping=dict(mapping),
        old_digest=old_digest,
        new_digest=spec.digest,
    )


# --- the plan as text, for the command line

COLUMN = 36


def _columns(titles: tuple[str, ...], texts: tuple[str, ...]) -> list[str]:
    """Return lines holding the texts side by side, each wrapped to its column."""
    wrapped = []
    for text in texts:
        lines = []
        for paragraph in text.splitlines() or [""]:
            lines += textwrap.wrap(paragraph, COLUMN) or [""]
        wrapped.append(lines)
    rows = [tuple(t.ljust(COLUMN) for t in titles), tuple("-" * COLUMN for _ in titles)]
    height = max(len(lines) for lines in wrapped)
    for i in range(height):
        rows.append(tuple((lines[i] if i < len(lines) else "").ljust(COLUMN) for lines in wrapped))
    return ["    " + " | ".join(row).rstrip() for row in rows]


def format_plan(plan: UpgradePlan) -> str:
    """Return the plan as plain text for a terminal."""
    lines = [f"Upgrade plan: {plan.old_pack} -> {plan.new_pack} ({plan.kind})"]
    if plan.kind == NAMES_CHANGED:
        lines.append("This upgrade changes category names: it is a migration event.")
    if plan.added:
        lines.append("Added categories: " + ", ".join(plan.added))
    if plan.removed:
        lines.append("Removed categories: " + ", ".join(plan.removed))
    for move in plan.moves:
        noun = "memory" if move.memories == 1 else "memories"
        lines.append(f"Move {move.memories} {noun}: {move.old} -> {move.new}")
    for name in plan.dropped_overrides:
        lines.append(f"The override of {name} goes with it (kept in the category's history).")
    for change in plan.properties:
        lines.append(f"{change.name}: {change.field} {change.old!r} -> {change.new!r}")
    for name in plan.defaults_changed:
        lines.append(f"{name}: the pack default changes (no override; the new text applies).")
    for flagged in plan.flagged:
        lines.append(
            f"{flagged.name}: override kept, but its pack default moved underneath it "
            "(flagged for review):"
        )
        for name in flagged.fields:
            lines.append(f"  {LABELS[name]}:")
            lines += _columns(
                ("old default", "new default", "override"),
                (
                    field_text(flagged.old_default, name),
                    field_text(flagged.new_default, name),
                    field_text(flagged.override, name),
                ),
            )
    if plan.surface_before != plan.surface_after:
        lines.append(f"Surface hash: {plan.surface_before[:12]} -> {plan.surface_after[:12]}")
    else:
        lines.append(f"Surface hash unchanged: {plan.surface_after[:12]}")
    if plan.refusals:
        lines.append("REFUSED; nothing will change:")
        lines += [f"  - {reason}" for reason in plan.refusals]
    return "\n".join(lines) + "\n"
