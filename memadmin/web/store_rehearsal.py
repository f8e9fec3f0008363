"""A rehearsal of a store write: every check made, nothing committed to the store.

The admin runs a service once on a form's data and rolls memadmin's side back, to show a
refusal on the form before saving (`service_admin.ServiceAdmin._dry_run`). A write to a
magic-context store commits in its own transaction, which memadmin's rollback cannot
reach; inside ``store_rehearsal()`` the store writer runs the same transaction, checks
included (row versions, revisions, duplicates, authority), and rolls it back instead.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_rehearsing: ContextVar[bool] = ContextVar("store_rehearsal", default=False)


@contextmanager
def store_rehearsal() -> Iterator[None]:
    """Within the block, store writes check everything and commit nothing."""
    token = _rehearsing.set(True)
    try:
        yield
    finally:
        _rehearsing.reset(token)


def rehearsing() -> bool:
    """Return True inside ``store_rehearsal()``."""
    return _rehearsing.get()
