"""The plain data the injection ledger takes in and hands back."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, Protocol

Mode = Literal["plugin", "headers", "pack"]
TieBreak = Literal["recent", "id"]
Kind = Literal["header", "detail", "standalone"]
Reason = Literal[
    "over budget", "lazy detail", "expired", "archived", "superseded", "not read by the plugin"
]

MODES: tuple[str, ...] = ("plugin", "headers", "pack")
TIE_BREAKS: tuple[str, ...] = ("recent", "id")

BUDGET_MIN = 500
BUDGET_MAX = 20000
BUDGET_DEFAULT = 4000

OVER_BUDGET: Reason = "over budget"
LAZY_DETAIL: Reason = "lazy detail"
EXPIRED: Reason = "expired"
ARCHIVED: Reason = "archived"
SUPERSEDED: Reason = "superseded"
NOT_READ: Reason = "not read by the plugin"  # dropped by the plugin's row reader (see reader)


class LedgerError(ValueError):
    """An assembly was asked for with arguments it cannot honour."""


class TokenCounter(Protocol):
    """Anything that names itself and counts the tokens of a text.

    A counter may also offer ``count_many(texts) -> list[int]``, the count of each text in
    order; an assembly then counts its lines in bulk (see ``prepared.count_all``). And it
    may offer ``count_memories(memories, unneeded=()) -> list[int | None]``, the count of
    each memory's plugin-mode line (as ``render.counted_lines`` makes it with no suffix), in
    order, None allowed for a memory whose id is ``unneeded``: a counter that keeps counts
    by (id, content digest) renders only the lines it does not know (see
    ``PreparedStore.costs``). Such a counter may also offer ``count_headers(memories,
    suffixes) -> list[int]``, the count of each memory's line ending with its suffix (a
    header's line in headers mode, see ``headers``).
    """

    name: str

    def count(self, text: str) -> int:
        """Return the number of tokens in the text."""
        ...


class LedgerMemory(NamedTuple):
    """One memory row as the ledger sees it.

    ``id`` is the id rendered as ``#id``; ``source_name`` (a workspace memory from another
    project) renders as `` [name]`` after it. Times are epoch milliseconds.

    A named tuple, immutable like the frozen dataclasses here, because a page reads up to
    100,000 of them per request and a tuple is made several times faster than a frozen
    dataclass (which sets each field through ``object.__setattr__``).
    """

    id: int
    category: str
    content: str
    status: str
    importance: int | None
    expires_at: int | None
    superseded_by: int | None
    last_seen_at: int | None
    verified_at: int | None
    updated_at: int
    source_name: str | None = None
    # What the plugin's row reader checks (see ``reader``), and whose memory it is.
    scope: str | None = "project"
    source_type: str | None = "historian"
    verification_status: str | None = "unverified"
    shareable: int = 0
    project: str = ""
    first_seen_at: int | None = 0
    created_at: int | None = 0
    # (column, value) pairs the store holds that memadmin could not keep as they are (a NULL
    # source_type, a text timestamp...): the plugin's reader sees these, not memadmin's.
    unread: tuple = ()
    # A 64-bit digest of ``content`` (memadmin stores one with each memory), or None when
    # unknown. With one, a plain line's stored count is found by (id, digest), the line
    # never rendered (see ``TokenCounter``); whoever changes ``content`` drops it.
    content_digest: int | None = None


@dataclass(frozen=True, slots=True)
class LedgerComposite:
    """A composite: a head memory and its ordered members."""

    id: int
    type: str
    head_id: int
    member_ids: tuple[int, ...]


@dataclass(slots=True)
class LedgerRow:
    """The ledger's account of one input memory (read-only by convention).

    Not frozen: a frozen dataclass costs several times more to build, and a page or a
    JSON export may build one row per memory, up to 100,000 of them.

    ``tokens`` is the memory's cost: for a memory that competed, the cost charged (or that
    would have been charged) when it was tried, including its category's tags when it would
    have opened the category; for any other memory, the cost of its line alone.
    ``running_total`` is the accounted total right after the memory was tried (unchanged
    when it was skipped); ``order`` is its 1-based selection rank. Both are None for a
    memory that never competed (a lazy detail, an ineligible memory). ``reachable`` is True
    when the memory is injected, or a detail reachable from an injected header.
    ``header_ids`` are the heads of the composites it belongs to; ``detail_ids`` the
    eligible members of the composites it heads, as listed on a header line.
    """

    memory_id: int
    kind: Kind
    category: str
    tokens: int
    running_total: int | None
    injected: bool
    reason: Reason | None
    order: int | None
    reachable: bool
    header_ids: tuple[int, ...] = ()
    detail_ids: tuple[int, ...] = ()

    def to_json(self) -> dict:
        """Return the row as a dict of JSON-ready values."""
        return {
            "memory_id": self.memory_id,
            "kind": self.kind,
            "category": self.category,
            "tokens": self.tokens,
            "running_total": self.running_total,
            "injected": self.injected,
            "reason": self.reason,
            "order": self.order,
            "reachable": self.reachable,
            "header_ids": list(self.header_ids),
            "detail_ids": list(self.detail_ids),
        }


@dataclass(frozen=True, slots=True)
class Coverage:
    """How much of a project's live memories an injection reaches.

    ``eligible`` counts the candidates (active or permanent, not expired) the mode's reader
    keeps; ``reachable`` those injected or reachable as details from an injected header.
    ``live`` counts every live memory of the project, the rows the mode's reader drops too
    (set by ``as_plugin.assemble_read``; None when no reader ran: then it is ``eligible``).
    ``share`` is honest: reachable over live, so a plugin that can never read most of a
    project does not show 100%; ``never_injectable`` says how many it cannot read.
    """

    eligible: int
    injected: int
    reachable: int
    live: int | None = None

    @property
    def live_count(self) -> int:
        return self.eligible if self.live is None else self.live

    @property
    def never_injectable(self) -> int:
        """Return how many live memories this mode's plugin can never inject (it drops them)."""
        return self.live_count - self.eligible

    @property
    def share(self) -> float:
        """Return reachable / live; 1.0 when nothing is live (nothing is left out)."""
        return self.reachable / self.live_count if self.live_count else 1.0

    def to_json(self) -> dict:
        """Return the coverage as a dict of JSON-ready values."""
        return {
            "eligible": self.eligible,
            "injected": self.injected,
            "reachable": self.reachable,
            "live": self.live_count,
            "never_injectable": self.never_injectable,
            "share": self.share,
        }


@dataclass(frozen=True, slots=True)
class LedgerResult:
    """One assembled injection and the account of every input memory.

    ``rendered`` is the block exactly as injected, or ``""`` when nothing is selected.
    ``used_tokens`` is the accounted total of what is injected: the wrapper plus every
    admitted cost, or 0 when nothing is injected (the wrapper is still charged up front
    while selecting; ``wrapper_tokens`` says how much). ``by_category`` maps each category
    with injected memories, in render order, to its injected tokens (tags included), so
    ``used_tokens == wrapper_tokens + sum(by_category.values())`` whenever anything is
    injected. ``rows`` lists the competitors in selection order, then every other memory
    by id; an assembly hands out a ``rows.LedgerRows``, which makes each row when asked.
    """

    rendered: str
    rows: Sequence[LedgerRow]
    used_tokens: int
    budget: int
    counter_name: str
    mode: Mode
    tie_break: TieBreak
    wrapper_tokens: int
    coverage: Coverage
    by_category: dict[str, int] = field(default_factory=dict)
    # The rows the plugin's reader dropped before selection (see ``reader.DroppedRow``), and
    # which plugin the figures assume (see ``reader.PLUGIN_ASSUMED``).
    dropped: tuple = ()
    assumes: str = ""

    @property
    def injected_ids(self) -> list[int]:
        """Return the ids of the injected memories, in selection order."""
        known = getattr(self.rows, "injected_ids", None)  # LedgerRows knows without rows
        if known is not None:
            return list(known)
        return [row.memory_id for row in self.rows if row.injected]

    def to_json(self) -> dict:
        """Return the result as a dict of JSON-ready values."""
        return {
            "mode": self.mode,
            "tie_break": self.tie_break,
            "budget": self.budget,
            "counter_name": self.counter_name,
            "used_tokens": self.used_tokens,
            "wrapper_tokens": self.wrapper_tokens,
            "coverage": self.coverage.to_json(),
            "by_category": dict(self.by_category),
            "assumes": self.assumes,
            "dropped": [row.to_json() for row in self.dropped],
            "rendered": self.rendered,
            "rows": [row.to_json() for row in self.rows],
        }


@dataclass(frozen=True, slots=True)
class ModeComparison:
    """The same store assembled in both modes at the same budget."""

    plugin: LedgerResult
    headers: LedgerResult

    @property
    def coverage_gain(self) -> float:
        """Return how much more of the store the headers mode reaches, as a share."""
        return self.headers.coverage.share - self.plugin.coverage.share
