"""The store backend that writes magic-context's ``context.db``: the one the settings name.

``MEMADMIN_STORE = {"BACKEND": "memadmin.interop.store_backend.ContextDbStore"}`` makes every
person's write reach the store a project is synced from (`memadmin.projects.store` says what
a backend does). It hands each write to interop's writers: memories to `store_writes`,
criteria to `criteria_writes`, composites to `composite_publish`; each of them follows
``settings.MEMADMIN_STORE_WRITES`` (through, pending or off).
"""

from collections.abc import Sequence

from memadmin.composites.models import Composite
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.projects.store import NOTHING, Receipt, StoreChange

from .composites.publish import GATEWAY as COMPOSITE_GATEWAY
from .write_through.criteria_writes import CRITERIA_GATEWAY
from .write_through.store_writes import GATEWAY as MEMORY_GATEWAY

# A title change writes nothing (titles have no column in the store and stay in memadmin),
# nor does freezing a reference set.
UNPUBLISHED_ACTIONS = frozenset({"composite_renamed", "reference_set_frozen"})


class ContextDbStore:
    """Write memories, criteria and composites to the project's ``context.db``."""

    def write_memories(self, *, project: Project, changes: Sequence[StoreChange]) -> Receipt:
        if not changes:
            return NOTHING
        return MEMORY_GATEWAY.write(project=project, changes=changes)

    def read_only_reason(self, project: Project | None) -> str:
        return "" if project is None else MEMORY_GATEWAY.read_only_reason(project)

    def pending_memory_ids(self, memory_ids: Sequence[int]) -> set[int]:
        return MEMORY_GATEWAY.pending(memory_ids) if memory_ids else set()

    def memory_revision(self, memory: Memory) -> int | None:
        return None if memory.upstream_id is None else MEMORY_GATEWAY.store_revision(memory)

    def memory_revisions(self, memories: Sequence[Memory]) -> dict[int, int]:
        synced = [memory for memory in memories if memory.upstream_id is not None]
        return MEMORY_GATEWAY.store_revisions(synced) if synced else {}

    def write_criteria(self, *, project: Project) -> None:
        CRITERIA_GATEWAY.written(project)

    def write_composite(self, *, composite: Composite, action: str) -> None:
        if action not in UNPUBLISHED_ACTIONS:
            COMPOSITE_GATEWAY.write(composite=composite, action=action)
