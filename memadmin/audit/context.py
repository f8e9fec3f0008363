"""Carry the actor and reason of the change under way to everything it writes."""

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from .actors import Actor, as_actor


@dataclass(frozen=True)
class Acting:
    actor: Actor
    reason: str


_current: ContextVar[Acting | None] = ContextVar("memadmin_acting", default=None)


@contextmanager
def acting(*, actor, reason: str = ""):
    """Make `actor` and `reason` the author of every history row written inside the block."""
    token = _current.set(Acting(actor=as_actor(actor), reason=reason or ""))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def current() -> Acting | None:
    """Return the actor and reason in force, or None outside any `acting` block."""
    return _current.get()
