"""The entries of a memory's timeline, as plain data for the template."""

from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from memadmin.core.worddiff import DiffOp

# Actions that say no more than the version itself shows.
GENERIC_ACTIONS = frozenset(
    {"created", "edited", "recategorised", "archived", "restored", "superseded", "merged"}
)

KIND_LABELS = {
    "created": "created",
    "merged_from": "created by merging",
    "edited": "edited",
    "recategorised": "recategorised",
    "archived": "archived",
    "restored": "restored",
    "merged_into": "merged into another memory",
    "superseded": "superseded",
    "joined": "joined a composite",
    "left": "left a composite",
    "headed": "became the head of a composite",
    "unheaded": "stopped heading a composite",
    "fragmented": "fragmented",
    "fragment_of": "created by fragmenting",
    "reverted": "reverted to an earlier version",
    "deleted": "deleted",
}
# The order in which an entry's kinds are named: the most telling first.
KIND_ORDER = (
    "reverted",
    "fragmented",
    "fragment_of",
    "merged_into",
    "superseded",
    "merged_from",
    "created",
    "deleted",
    "edited",
    "recategorised",
    "archived",
    "restored",
    "joined",
    "left",
    "headed",
    "unheaded",
)


@dataclass(frozen=True)
class MemoryRef:
    """Another memory a timeline entry names (a successor or a merge source)."""

    pk: int
    display_id: int
    exists: bool


@dataclass(frozen=True)
class CompositeRef:
    """A composite a timeline entry names, as it was at that version."""

    pk: int
    type: str
    title: str
    position: int | None = None

    @property
    def label(self) -> str:
        """Return the composite's title, or its type and number."""
        return self.title or f"{self.type} #{self.pk}"


@dataclass
class TimelineEntry:
    """One change in a memory's life."""

    at: datetime
    actor: str
    actor_kind: str
    reason: str = ""
    kinds: list[str] = field(default_factory=list)
    action: str = ""
    diff: list[DiffOp] = field(default_factory=list)
    category_change: tuple[str, str] | None = None
    status_change: tuple[str, str] | None = None
    minor_changes: list[tuple[str, object, object]] = field(default_factory=list)
    memories: list[MemoryRef] = field(default_factory=list)
    composite: CompositeRef | None = None
    version_id: int | None = None
    change_id: UUID | None = None
    quiet: bool = False

    @property
    def kind(self) -> str:
        """Return the entry's most telling kind of change."""
        return self.kinds[0] if self.kinds else "edited"

    @property
    def label(self) -> str:
        """Return the words that head the entry."""
        if self.action and self.action not in GENERIC_ACTIONS and self.kind not in KIND_LABELS:
            return self.action.replace("_", " ")
        return KIND_LABELS.get(self.kind, self.kind.replace("_", " "))
