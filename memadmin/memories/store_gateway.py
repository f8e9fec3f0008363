"""The hook through which memory writes reach the magic-context store a project is synced from.

The memories app sits below interop, so it cannot call the store writer itself. Interop
registers a gateway here when the app registry is ready (`InteropConfig.ready`); every
service that writes a person's change to memories calls `store_write` inside its own
transaction, before saving memadmin's rows. The gateway writes the store (and commits it),
or raises a `StoreRefused` so that nothing is written on either side. After memadmin's rows
are saved, the service calls the receipt's `settle()`, which records in the same
transaction what the store now holds. Without a gateway (or for a project not synced from a
store) `store_write` does nothing.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from django.core.exceptions import ValidationError

from memadmin.projects.models import Project

from .models import Memory


class StoreRefused(ValidationError):
    """The store refused the write, or cannot take it; nothing was written on either side.

    ``project`` is the project written; ``read_only`` says the project cannot take writes
    at all now (the message says why), rather than this one write being refused.
    """

    def __init__(self, message: str, *, project: Project, code: str, read_only: bool = False):
        self.project = project
        self.read_only = read_only
        super().__init__(message, code=code)


class StoreBusy(StoreRefused):
    """The agent held the store's write lock past the timeout: try again."""


class StoreRowChanged(StoreRefused):
    """The store's row changed since memadmin read it; ``store`` is its values now (or None)."""

    def __init__(self, message: str, *, project: Project, store: dict | None):
        self.store = store
        super().__init__(message, project=project, code="store_changed")


class StoreDuplicate(StoreRefused):
    """Another row of the store has the text; ``existing`` is memadmin's memory of it, if any."""

    def __init__(self, message: str, *, project: Project, existing: Memory | None, upstream_id):
        self.existing = existing
        self.upstream_id = upstream_id
        super().__init__(message, project=project, code="store_duplicate")


@dataclass
class StoreChange:
    """One memory's change: its new state (unsaved), and what kind of change it is.

    ``kind`` is "create", "update", "supersede" (archived, superseded by ``memory``'s
    ``superseded_by``, which may be the memory a "create" of the same call makes), "seen"
    (an exact duplicate written again: only its seen count and time move) or "delete".
    ``reason`` is the one the person typed for the change (kept in a lifecycle store's
    ``memory_history``). ``expected_revision`` is the store row's ``revision`` the page
    showed (None: not checked); a row whose revision moved since is refused.
    """

    memory: Memory
    kind: str = "update"
    reason: str = ""
    expected_revision: int | None = None


@dataclass
class Receipt:
    """What a store write did; `settle()` records it once memadmin's rows are saved."""

    changes: Sequence[StoreChange] = ()
    settlers: list = field(default_factory=list)

    def settle(self) -> None:
        """Record, in memadmin's transaction, what the store now holds for each memory."""
        for settler in self.settlers:
            settler()


NOTHING = Receipt()


class Gateway(Protocol):
    def write(self, *, project: Project, changes: Sequence[StoreChange]) -> Receipt: ...

    def read_only_reason(self, project: Project) -> str: ...

    def pending(self, memory_ids: Sequence[int]) -> set[int]: ...

    def store_revision(self, memory: Memory) -> int | None: ...

    def store_revisions(self, memories: Sequence[Memory]) -> dict[int, int]: ...


_gateway: list[Gateway] = []


def register(gateway: Gateway) -> None:
    """Make ``gateway`` the one that store writes go through."""
    _gateway[:] = [gateway]


def store_write(*, project: Project, changes: Sequence[StoreChange]) -> Receipt:
    """Write ``changes`` (memories of ``project``) to the project's store; see the module."""
    if not _gateway or not changes:
        return NOTHING
    return _gateway[0].write(project=project, changes=changes)


def read_only_reason(project: Project | None) -> str:
    """Return why the project's memories cannot be written now ("" when they can)."""
    if project is None or not _gateway:
        return ""
    return _gateway[0].read_only_reason(project)


def store_revisions(memories: Sequence[Memory]) -> dict[int, int]:
    """Return the store rows' ``revision`` now, by memadmin's memory id (those known only)."""
    synced = [memory for memory in memories if memory.upstream_id is not None]
    if not _gateway or not synced:
        return {}
    return _gateway[0].store_revisions(synced)


def store_revision(memory: Memory) -> int | None:
    """Return the store row's ``revision`` now (None: no store, no such column, unreadable)."""
    if not _gateway or memory.upstream_id is None:
        return None
    return _gateway[0].store_revision(memory)


def pending_ids(memory_ids: Sequence[int]) -> set[int]:
    """Return which of the memories hold changes not yet in their store."""
    if not _gateway or not memory_ids:
        return set()
    return _gateway[0].pending(memory_ids)
