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

JavaScript's ``typeof x === "number"`` holds for SQLite's INTEGER and REAL alike, so "a
number" here is an ``int`` or a ``float`` (``bool`` excluded). Where memadmin keeps another
value than the store (the sync reads a NULL ``source_type`` as ``historian``), the store's
value travels in ``LedgerMemory.unread`` and is the one checked.
"""

from collections.abc import Collection, Iterable, Mapping
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


def unknown_category_reason(category: str, *, pack: bool = False) -> str:
    """Return the sentence saying a category is never injected because it is unknown."""
    if pack:
        return f"the project's pack does not define the category {category}: never injected"
    return f"magic-context does not know the category {category}: never injected"


NUMBER = "number"  # typeof === "number": INTEGER or REAL
NULLABLE_NUMBER = "nullable number"
TEXT = "text"
NULLABLE_TEXT = "nullable text"
# isMemoryRow's checks after the category, in its order (column, kind or allowed values).
ROW_CHECKS: tuple[tuple[str, object], ...] = (
    ("content", TEXT),
    ("normalized_hash", TEXT),
    ("importance", NUMBER),
    ("scope", MEMORY_SCOPES),
    ("shareable", NUMBER),
    ("source_session_id", NULLABLE_TEXT),
    ("source_type", SOURCE_TYPES),
    ("seen_count", NUMBER),
    ("retrieval_count", NUMBER),
    ("first_seen_at", NUMBER),
    ("created_at", NUMBER),
    ("updated_at", NUMBER),
    ("last_seen_at", NUMBER),
    ("last_retrieved_at", NULLABLE_NUMBER),
    ("status", MEMORY_STATUSES),
    ("expires_at", NULLABLE_NUMBER),
    ("verification_status", VERIFICATION_STATUSES),
    ("verified_at", NULLABLE_NUMBER),
    ("superseded_by_memory_id", NULLABLE_NUMBER),
    ("merged_from", NULLABLE_TEXT),
    ("metadata_json", NULLABLE_TEXT),
)
COALESCED = {"importance": IMPORTANCE_DEFAULT, "scope": "project", "shareable": 0}


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fails(kind: object, value: object) -> bool:
    if kind == NUMBER:
        return not _number(value)
    if kind == NULLABLE_NUMBER:
        return value is not None and not _number(value)
    if kind == TEXT:
        return not isinstance(value, str)
    if kind == NULLABLE_TEXT:
        return value is not None and not isinstance(value, str)
    return value not in kind  # type: ignore[operator]


def _sentence(column: str, kind: object, value: object) -> str:
    if isinstance(kind, tuple):
        return f"{column} {value!r} is not one of {' | '.join(kind)}: never injected"
    expected = "text" if kind in (TEXT, NULLABLE_TEXT) else "a number"
    return f"{column} {value!r} is not {expected}: never injected"


def row_problem(values: Mapping[str, object]) -> tuple[str, object, str] | None:
    """Return (column, value, sentence) for the first check of ``isMemoryRow`` that fails.

    ``values`` are the row's columns as read (a missing column counts as valid); the
    COALESCE defaults apply first. The category is not checked here (see ``drop_reason``).
    """
    for column, kind in ROW_CHECKS:
        if column not in values:
            continue
        value = values[column]
        if value is None and column in COALESCED:
            value = COALESCED[column]
        if _fails(kind, value):
            return column, value, _sentence(column, kind, value)
    return None


def drop_reason(
    memory: LedgerMemory, categories: Collection[str], *, pack: bool = False
) -> DroppedRow | None:
    """Return why the reader drops the row, or None when it keeps it.

    The checks run in upstream's order (``isMemoryRow``), the first that fails naming the
    reason; ``memory.unread`` holds the values the store has where memadmin keeps another.
    """
    if memory.category not in categories:
        reason = unknown_category_reason(memory.category, pack=pack)
        return DroppedRow(memory.id, memory.category, "category", memory.category, reason)
    values = {column: getattr(memory, column) for column in _HELD}
    values.update(memory.unread)
    problem = row_problem(values)
    if problem is None:
        return None
    return DroppedRow(memory.id, memory.category, *problem)


_HELD = (
    "content",
    "importance",
    "scope",
    "shareable",
    "source_type",
    "first_seen_at",
    "created_at",
    "updated_at",
    "last_seen_at",
    "status",
    "expires_at",
    "verification_status",
    "verified_at",
)


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
    kept, dropped, _ = read_rows_at(memories, categories=categories, pack=pack, now_ms=now_ms)
    return kept, dropped


def read_rows_at(
    memories: Iterable[LedgerMemory],
    *,
    categories: Collection[str] = CATEGORY_PRIORITY,
    pack: bool = False,
    now_ms: int | None = None,
) -> tuple[list[LedgerMemory], list[DroppedRow], list[int]]:
    """Return ``read_rows``'s rows kept and dropped, and the positions of the dropped ones.

    The positions (in the order given, ascending) let a read be patched for a few edited
    memories (``patching.reread``) without reading every row again.
    """
    known = frozenset(categories)
    scopes = frozenset((*MEMORY_SCOPES, None))
    sources = frozenset(SOURCE_TYPES)
    verifications = frozenset(VERIFICATION_STATUSES)
    statuses = frozenset(MEMORY_STATUSES)
    live = frozenset(("active", "permanent"))
    kept: list[LedgerMemory] = []
    dropped: list[DroppedRow] = []
    skipped: list[int] = []
    append = kept.append
    for position, memory in enumerate(memories):
        # The common row passes every check: tested inline first, explained only if not.
        if not (
            memory.category in known
            and not memory.unread
            and memory.scope in scopes
            and memory.source_type in sources
            and memory.verification_status in verifications
            and memory.status in statuses
            and type(memory.content) is str
            and type(memory.importance) in _INT_OR_NONE
            and type(memory.shareable) is int
            and type(memory.first_seen_at) is int
            and type(memory.created_at) is int
            and type(memory.updated_at) is int
            and type(memory.last_seen_at) is int
            and type(memory.expires_at) in _INT_OR_NONE
            and type(memory.verified_at) in _INT_OR_NONE
        ) and (
            now_ms is None
            or (memory.status in live and (memory.expires_at is None or memory.expires_at > now_ms))
        ):
            problem = drop_reason(memory, known, pack=pack)
            if problem is not None:
                dropped.append(problem)
                skipped.append(position)
                continue
        if memory.importance is None or memory.scope is None or memory.shareable is None:
            memory = _with_defaults(memory)
        append(memory)
    return kept, dropped, skipped


_INT_OR_NONE = frozenset((int, type(None)))
_IMPORTANCE = LedgerMemory._fields.index("importance")
_SCOPE = LedgerMemory._fields.index("scope")
_SHAREABLE = LedgerMemory._fields.index("shareable")


def _with_defaults(memory: LedgerMemory) -> LedgerMemory:
    """Return the memory with upstream's COALESCE defaults (faster than ``_replace``)."""
    values = list(memory)
    if values[_IMPORTANCE] is None:
        values[_IMPORTANCE] = IMPORTANCE_DEFAULT
    if values[_SCOPE] is None:
        values[_SCOPE] = "project"
    if values[_SHAREABLE] is None:
        values[_SHAREABLE] = 0
    return tuple.__new__(LedgerMemory, values)


def is_live(memory: LedgerMemory, now_ms: int) -> bool:
    """Return True for a row upstream's query reads: active or permanent, not expired."""
    return memory.status in ("active", "permanent") and (
        memory.expires_at is None or memory.expires_at > now_ms
    )


def never_injected_summary(dropped: Iterable[DroppedRow], *, pack: bool = False) -> str:
    """Return the sentence saying how many live memories the plugin never injects, and why.

    The categories the plugin does not know are said once, listed with their counts.
    """
    unknown: dict[str, int] = {}
    others: dict[str, int] = {}
    for row in dropped:
        if row.column == "category":
            unknown[row.category] = unknown.get(row.category, 0) + 1
        else:
            others[row.reason] = others.get(row.reason, 0) + 1
    total = sum(unknown.values()) + sum(others.values())
    who = "a plugin reading the pack" if pack else "the stock plugin"
    if not total:
        return f"Every live memory is read by {who}."
    reasons = [f"{reason} ({count})" for reason, count in sorted(others.items())]
    if unknown:
        listed = [f"{category} ({count})" for category, count in sorted(unknown.items())]
        names = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} and {listed[-1]}"
        said = unknown_category_reason(names, pack=pack)
        if len(listed) > 1:
            said = said.replace("the category ", "the categories ")
        reasons.insert(0, said)
    plural = "memory is" if total == 1 else "memories are"
    return f"{total} live {plural} never injected by {who}: {'; '.join(reasons)}."
