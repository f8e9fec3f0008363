"""Read memory rows the way magic-context's own reader does, before any selection.

Upstream reads ``memories`` with ``getMemorySelectColumns`` and keeps a row only when
``isMemoryRow`` accepts it (``features/magic-context/memory/storage-memory.ts``, the same
from 0.38 through 0.46):

- three columns are read with defaults: ``COALESCE(importance, 50)``,
  ``COALESCE(scope, 'project')`` and ``COALESCE(shareable, 0)``;
- a row is dropped unless its category is one of the twelve of ``CATEGORY_PRIORITY``
  (``memory/constants.ts``: the five current names and the seven legacy ones), its scope,
  source type, status and verification status are among upstream's values (the unions of
  ``memory/types.ts``), its content is text and its four NOT NULL timestamps are numbers.

So a stock plugin never injects a memory of a category it does not know, whatever its
importance. ``pack`` mode reads with the same rules, but knows the pack's categories instead
of the twelve: what a plugin that reads the project's pack would inject.

JavaScript's ``typeof x === "number"`` holds for SQLite's INTEGER and REAL alike; memadmin
stores whole numbers only, so "a number" here is an ``int`` (``bool`` excluded).
"""

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from .model import LedgerMemory

CATEGORY_PRIORITY: tuple[str, ...] = (
    "PROJECT_RULES",
    "ARCHITECTURE",
    "CONSTRAINTS",
    "CONFIG_VALUES",
    "NAMING",
    "USER_DIRECTIVES",
    "USER_PREFERENCES",
    "CONFIG_DEFAULTS",
    "ARCHITECTURE_DECISIONS",
    "ENVIRONMENT",
    "WORKFLOW_RULES",
    "KNOWN_ISSUES",
)
SHARE_CATEGORIES: tuple[str, ...] = CATEGORY_PRIORITY[:5]  # ``V2_MEMORY_CATEGORIES``

MEMORY_STATUSES = ("active", "permanent", "archived")
MEMORY_SCOPES = ("project", "ecosystem", "universe")
SOURCE_TYPES = ("historian", "agent", "dreamer", "user")
VERIFICATION_STATUSES = ("unverified", "verified", "stale", "flagged")
IMPORTANCE_DEFAULT = 50
TIMESTAMPS = ("first_seen_at", "created_at", "updated_at", "last_seen_at")

STOCK_PLUGIN = "the stock magic-context plugin (its twelve categories)"
PACK_PLUGIN = "a plugin that reads the project's pack (its categories, in its order)"
PROPOSAL_PLUGIN = "a plugin implementing Proposal 3's header blocks (every category memadmin holds)"
PLUGIN_ASSUMED = {"plugin": STOCK_PLUGIN, "pack": PACK_PLUGIN, "headers": PROPOSAL_PLUGIN}


@dataclass(frozen=True, slots=True)
class DroppedRow:
    """A row the reader left out before selection: which column, its value, and why."""

    memory_id: int
    category: str
    column: str
    value: object
    reason: str

    def to_json(self) -> dict:
        """Return the row as a dict of JSON-ready values."""
        value = self.value if isinstance(self.value, str | int | None) else repr(self.value)
        return {
            "memory_id": self.memory_id,
            "category": self.category,
            "column": self.column,
            "value": value,
            "reason": self.reason,
        }


def _is_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def unknown_category_reason(category: str, *, pack: bool = False) -> str:
    """Return the sentence saying a category is never injected because it is unknown."""
    if pack:
        return f"the project's pack does not define the category {category}: never injected"
    return f"magic-context does not know the category {category}: never injected"


def drop_reason(
    memory: LedgerMemory, categories: Collection[str], *, pack: bool = False
) -> DroppedRow | None:
    """Return why the reader drops the row, or None when it keeps it.

    The checks run in upstream's order (``isMemoryRow``), and the first that fails names
    the reason. ``importance`` is checked after its default: None reads as 50.
    """

    def dropped(column: str, value: object, reason: str) -> DroppedRow:
        return DroppedRow(memory.id, memory.category, column, value, reason)

    if memory.category not in categories:
        return dropped(
            "category", memory.category, unknown_category_reason(memory.category, pack=pack)
        )
    if not isinstance(memory.content, str):
        return dropped("content", memory.content, "the content is not text: never injected")
    if memory.importance is not None and not _is_number(memory.importance):
        return dropped(
            "importance", memory.importance, "the importance is not a number: never injected"
        )
    checks = (
        ("scope", "project" if memory.scope is None else memory.scope, MEMORY_SCOPES),
        ("source_type", memory.source_type, SOURCE_TYPES),
    )
    for column, value, allowed in checks:
        if value not in allowed:
            return dropped(column, value, _not_one_of(column, value, allowed))
    for column in TIMESTAMPS:
        value = getattr(memory, column)
        if not _is_number(value):
            return dropped(column, value, f"{column} {value!r} is not a number: never injected")
    for column, allowed in (
        ("status", MEMORY_STATUSES),
        ("verification_status", VERIFICATION_STATUSES),
    ):
        value = getattr(memory, column)
        if value not in allowed:
            return dropped(column, value, _not_one_of(column, value, allowed))
    return None


def _not_one_of(column: str, value: object, allowed: tuple[str, ...]) -> str:
    return f"{column} {value!r} is not one of {' | '.join(allowed)}: never injected"


def read_rows(
    memories: Iterable[LedgerMemory],
    *,
    categories: Collection[str] = CATEGORY_PRIORITY,
    pack: bool = False,
    now_ms: int | None = None,
) -> tuple[list[LedgerMemory], list[DroppedRow]]:
    """Return the rows the reader keeps (with its defaults applied) and those it drops.

    Kept rows keep their order; a missing importance reads as 50, a missing scope as
    ``project`` and a missing ``shareable`` as 0. Given ``now_ms``, only live rows (active
    or permanent, not expired: the rows upstream's query asks for) are checked; the others
    are kept, to be accounted for as archived or expired, as they would be anyway.
    """
    known = frozenset(categories)
    kept: list[LedgerMemory] = []
    dropped: list[DroppedRow] = []
    for memory in memories:
        if now_ms is None or is_live(memory, now_ms):
            problem = drop_reason(memory, known, pack=pack)
            if problem is not None:
                dropped.append(problem)
                continue
        if memory.importance is None or memory.scope is None or memory.shareable is None:
            memory = memory._replace(
                importance=IMPORTANCE_DEFAULT if memory.importance is None else memory.importance,
                scope=memory.scope or "project",
                shareable=memory.shareable or 0,
            )
        kept.append(memory)
    return kept, dropped


def is_live(memory: LedgerMemory, now_ms: int) -> bool:
    """Return True for a row upstream's query reads: active or permanent, not expired."""
    return memory.status in ("active", "permanent") and (
        memory.expires_at is None or memory.expires_at > now_ms
    )


def never_injected_summary(dropped: Iterable[DroppedRow], *, pack: bool = False) -> str:
    """Return the sentence saying how many live memories the plugin never injects, and why."""
    counts: dict[str, int] = {}
    for row in dropped:
        counts[row.reason] = counts.get(row.reason, 0) + 1
    total = sum(counts.values())
    who = "a plugin reading the pack" if pack else "the stock plugin"
    if not total:
        return f"Every live memory is read by {who}."
    reasons = "; ".join(f"{reason} ({count})" for reason, count in sorted(counts.items()))
    plural = "memory is" if total == 1 else "memories are"
    return f"{total} live {plural} never injected by {who}: {reasons}."
