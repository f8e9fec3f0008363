"""The hook through which composite writes reach the store their project is synced from.

The composites app sits below interop, so it cannot write the store itself. Interop registers
a gateway here when the app registry is ready (`InteropConfig.ready`), as it does for memories
(`memadmin.memories.store_gateway`). Every composite service calls `store_write` inside its
own transaction once memadmin's rows are written (through `rules.record` and the repointing
of a merge): the gateway writes the composite's whole state to the store and commits it, or
raises a ValidationError so that memadmin's transaction writes nothing either. Without a
gateway, or for a store that does not publish composites, it does nothing.

``action`` is the audit action of the write; "composite_deleted" removes the store's row.
A title change writes nothing: titles have no column in the store and stay in memadmin.
"""

from typing import Protocol

from .models import Composite

UNPUBLISHED_ACTIONS = frozenset({"composite_renamed", "reference_set_frozen"})


class Gateway(Protocol):
    def write(self, *, composite: Composite, action: str) -> None: ...


_gateway: list[Gateway] = []


def register(gateway: Gateway) -> None:
    """Make ``gateway`` the one that composite store writes go through."""
    _gateway[:] = [gateway]


def store_write(*, composite: Composite, action: str) -> None:
    """Write the composite's state (or its deletion) to its project's store; see the module."""
    if not _gateway or action in UNPUBLISHED_ACTIONS:
        return
    _gateway[0].write(composite=composite, action=action)
