"""The store seam: the backend through which a person's edits reach the store a project syncs from.

Settings name the backend, as Django's ``STORAGES`` names storage backends::

    MEMADMIN_STORE = {"BACKEND": "memadmin.interop.store_backend.ContextDbStore"}

The settings name interop's backend, which writes magic-context's ``context.db``
(`docs/store-protocol.md`). Without the setting, `NoStore` writes nothing outside memadmin.
Services call the backend visibly, inside their own transaction:
``store_backend().write_memories(...)`` before memadmin's rows are saved (then the receipt's
`settle()` once they are), ``write_criteria`` once a category is saved, ``write_composite``
once a composite's rows are written. A backend writes the store (and commits it) or raises a
`StoreRefused`, so that nothing is written on either side. A project not synced from a store
is not touched.

The module sits with the projects, below every app that writes (taxonomy, memories,
composites), so each of them can call it; the backend, higher up, imports them freely.
"""

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db.models import Model
from django.utils.module_loading import import_string

from .models import Project

DEFAULT_BACKEND = "memadmin.projects.store.NoStore"


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

    def __init__(self, message: str, *, project: Project, existing: Model | None, upstream_id):
        self.existing = existing
        self.upstream_id = upstream_id
        super().__init__(message, project=project, code="store_duplicate")


class CriteriaStoreRefused(ValidationError):
    """The store refused the criteria; nothing was written on either side."""


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

    memory: Model
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


class StoreBackend(Protocol):
    """What memadmin asks of the store its projects sync from (memories, criteria, composites)."""

    def write_memories(self, *, project: Project, changes: Sequence[StoreChange]) -> Receipt:
        """Write ``changes`` (memories of ``project``); raise StoreRefused, or return a receipt."""

    def read_only_reason(self, project: Project | None) -> str:
        """Return why the project's memories cannot be written now ("" when they can)."""

    def pending_memory_ids(self, memory_ids: Sequence[int]) -> set[int]:
        """Return which of the memories hold changes not yet in their store."""

    def memory_revision(self, memory: Model) -> int | None:
        """Return the store row's ``revision`` now (None: no store, no such column, unreadable)."""

    def memory_revisions(self, memories: Sequence[Model]) -> dict[int, int]:
        """Return the store rows' ``revision`` now, by memadmin's memory id (those known only)."""

    def write_criteria(self, *, project: Project) -> None:
        """Write the project's criteria; raise CriteriaStoreRefused when refused."""

    def write_composite(self, *, composite: Model, action: str) -> None:
        """Write a composite's state after the audit ``action`` ("composite_deleted": remove it)."""


class NoStore:
    """The backend when no store is attached: memadmin's rows are all there is."""

    def write_memories(self, *, project: Project, changes: Sequence[StoreChange]) -> Receipt:
        return NOTHING

    def read_only_reason(self, project: Project | None) -> str:
        return ""

    def pending_memory_ids(self, memory_ids: Sequence[int]) -> set[int]:
        return set()

    def memory_revision(self, memory: Model) -> int | None:
        return None

    def memory_revisions(self, memories: Sequence[Model]) -> dict[int, int]:
        return {}

    def write_criteria(self, *, project: Project) -> None:
        return None

    def write_composite(self, *, composite: Model, action: str) -> None:
        return None


def store_backend() -> StoreBackend:
    """Return the backend ``settings.MEMADMIN_STORE["BACKEND"]`` names (made once per name)."""
    config = getattr(settings, "MEMADMIN_STORE", None) or {}
    return _backend(config.get("BACKEND", DEFAULT_BACKEND))


@functools.cache
def _backend(path: str) -> StoreBackend:
    try:
        backend = import_string(path)
    except ImportError as error:
        message = f'MEMADMIN_STORE["BACKEND"] names {path!r}, which cannot be imported: {error}'
        raise ImproperlyConfigured(message) from error
    return backend()
