"""The hook through which a merge reaches the relation blocks (composites) citing its memories.

The memories app sits below composites, so it cannot call them itself. Composites register
their side here when the app registry is ready (`CompositesConfig.ready`), as interop
registers the store gateway (`store_gateway.py`). A merge calls `relations_repoint` and keeps
what it returns in its audit event; the merge's undo hands that back to `relations_restore`,
then asks `relations_cite` whether the result has been cited since. Without a hook nothing
cites a memory, and each does nothing.
"""

from collections.abc import Iterable
from typing import Protocol

from .models import Memory


class RelationHook(Protocol):
    def repoint(self, *, source_ids: Iterable[int], result_id: int) -> list[dict]: ...

    def restore(self, *, records: list[dict]) -> None: ...

    def cite(self, memory: Memory) -> bool: ...


_hook: RelationHook | None = None


def register(hook: RelationHook) -> None:
    """Install the relation blocks' side of merges (called once, from an app's `ready`)."""
    global _hook
    _hook = hook


def relations_repoint(*, source_ids: Iterable[int], result_id: int) -> list[dict]:
    """Point what cited the sources at the result; return the records an undo needs."""
    return [] if _hook is None else _hook.repoint(source_ids=source_ids, result_id=result_id)


def relations_restore(*, records: list[dict]) -> None:
    """Put back what `relations_repoint` changed, as its records found it."""
    if _hook is not None:
        _hook.restore(records=records)


def relations_cite(memory: Memory) -> bool:
    """Return True if a relation block cites the memory (as its head or a member)."""
    return _hook is not None and _hook.cite(memory)
