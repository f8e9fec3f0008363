"""Carry the actor, reason and identity of the change under way to everything it writes."""

import uuid
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from .actors import Actor, as_actor


@dataclass(frozen=True)
class Acting:
    actor: Actor
    reason: str
    change_id: uuid.UUID


_current: ContextVar[Acting | None] = ContextVar("memadmin_acting", default=None)


@contextmanager
def acting(*, actor, reason: str = "", new_change: bool = False):
    """Make `actor` and `reason` the author of every history row written inside the block.

    The block's audit events and history rows share one change id. A block nested in
    another is part of the outer change and keeps its id, unless `new_change` asks for one.
    """
    outer = _current.get()
    change_id = outer.change_id if outer is not None and not new_change else uuid.uuid4()
    token = _current.set(Acting(actor=as_actor(actor), reason=reason or "", change_id=change_id))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def current() -> Acting | None:
    """Return the actor and reason in force, or None outside any `acting` block."""
    return _current.get()


def current_change_id() -> uuid.UUID | None:
    """Return the id of the change under way, or None outside any `acting` block."""
    acting_now = _current.get()
    return acting_now.change_id if acting_now is not None else None
