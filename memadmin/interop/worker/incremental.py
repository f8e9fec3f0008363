"""Keep every synced store fresh: the periodic refresh the background worker runs every few seconds.

Each refresh looks at each store's marks (row count, highest id, latest time, last log id:
a few aggregate reads) and, when they moved, syncs only the rows changed since
(`context_db_sync(incremental=True)`). Every FULL_EVERY_SECONDS a store is synced whole
instead, as a safety net for a change that moved no mark, the first time FULL_EVERY_SECONDS
after the worker started: a restart does not re-read the whole store (six seconds of CPU at
100,000 memories) while the first pages are being asked for. A refresh that changes nothing
records no run (the store's watermark keeps when it was last checked); one that changes
something, or fails, does. A store whose last refresh was refused or failed is not tried
again until it moves, so a bad row upstream records one refused run, not one every few
seconds. While another sync runs the refresh is skipped.
"""

import time
from pathlib import Path

from django.db import IntegrityError

from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb.changes import StoreMarks, store_marks
from memadmin.core.process_cache import ProcessCache

from ..models import UpstreamStore
from ..writing.lock import SyncBusy
from ..writing.services import SyncRefused, context_db_sync

FULL_EVERY_SECONDS = 10 * 60
REASON = "periodic refresh by the background worker"

# Per worker process: when each store was last synced whole, and the marks it failed at
# (the version of a value that says nothing more).
_last_full: dict[int, float] = {}
_failed_at: ProcessCache[None] = ProcessCache("refreshes refused at a store's marks")
_started = time.monotonic()


def stores_refresh() -> dict[str, str]:
    """Refresh every synced store once; return what happened to each, by path."""
    outcome = {}
    for store in UpstreamStore.objects.order_by("id"):
        try:
            outcome[store.path] = store_refresh(store)
        except SyncBusy:
            outcome[store.path] = "skipped: another sync is running"
            break
    return outcome


def store_refresh(store: UpstreamStore) -> str:
    """Bring one store's changes in; return a word on what happened. Raise SyncBusy."""
    path = Path(store.path)
    if not path.exists():
        return "skipped: the store file is not there"
    failed = _failed_at.peek(store.pk)
    if failed is not None:
        try:
            if store_marks(path) == failed.version:
                return "skipped: unchanged since its last refusal"
        except StoreError:
            return "skipped: unreadable, as at its last refusal"
    full = time.monotonic() - _last_full.setdefault(store.pk, _started) >= FULL_EVERY_SECONDS
    try:
        try:
            run = _sync(path, incremental=not full)
        except IntegrityError:
            # A changed row collides with a row the incremental plan did not read: the
            # whole sync names the problem properly.
            run = _sync(path, incremental=False)
            full = True
    except SyncBusy:
        raise
    except SyncRefused:
        _remember_failure(store, path)
        return "refused"
    except Exception as error:  # recorded as a failed run by the sync itself
        _remember_failure(store, path)
        return f"failed: {error!r}"
    _failed_at.pop(store.pk)
    if full:
        _last_full[store.pk] = time.monotonic()
    if run is None:
        return "unchanged"
    return f"{run.outcome}: {run.new} new, {run.changed} changed, {run.gone} gone"


def _sync(path: Path, *, incremental: bool):
    return context_db_sync(
        path=path, reason=REASON, lock_wait=0, incremental=incremental, record_empty=False
    )


def _remember_failure(store: UpstreamStore, path: Path) -> None:
    try:
        _failed_at.put(store.pk, store_marks(path), None)
    except StoreError:
        _failed_at.put(store.pk, StoreMarks(-1, -1, -1, -1), None)
