"""The hook through which memories reach the relation blocks (composites) that cite them.

The memories app sits below composites, so it cannot call them itself. Composites register
their side here when the app registry is ready (`CompositesConfig.ready`), as interop
registers the store gateway (`store_gateway.py`). A merge calls `relations_repoint` and keeps
what it returns in its audit event; the merge's undo hands that back to `relations_restore`,
then asks `relations_cite` whether the result has been cited since. The bulk action "add to
a composite" picks, checks and adds through `relations()`. Without a hook nothing cites a
memory, and each does nothing.
"""

from collections.abc import Iterable
from typing import Protocol

from .models import Memory


class RelationHook(Protocol):
    def repoint(self, *, source_ids: Iterable[int], result_id: int) -> list[dict]: ...

    def restore(self, *, records: list[dict]) -> None: ...

    def cite(self, memory: Memory) -> bool: ...

    def composites(self): ...

    def refuse_archived_head(self, head: Memory) -> None: ...

    def add_members(self, *, composite, members, actor, reason: str = "") -> object: ...


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


def relations() -> RelationHook:
    """Return the registered relation blocks' side (composites are always installed)."""
    if _hook is None:
        raise LookupError("no relation blocks are registered (memadmin.composites is missing)")
    return _hook
