"""Stores newer than memadmin knows, remembered per process for every page to name.

A store whose schema is beyond the newest memadmin was tested with is read-only
(`memadmin.core.contextdb.write_checks.too_new_reason`). Every page, with a project or
without, says so with the version and why; a page must not pay a query for it, so the
answer lives in this process's memory: filled whenever the write probe or a refresh reads a
store, and read again from the stores themselves at most every ``RECHECK_SECONDS`` (one
query for the stores' paths, then each file's ``schema_migrations``).
"""

import threading
import time
from pathlib import Path

from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb.opening import open_readonly
from memadmin.core.contextdb.write_checks import too_new_reason

from ..models import UpstreamStore

RECHECK_SECONDS = 30.0

_lock = threading.Lock()
_reasons: dict[str, str] = {}
_checked_at = [float("-inf")]


def newer_note(path: str | Path, reason: str) -> None:
    """Remember what a reader of the store at ``path`` found ("": not newer than known)."""
    with _lock:
        if reason:
            _reasons[str(path)] = reason
        else:
            _reasons.pop(str(path), None)


def newer_stores() -> list[tuple[str, str]]:
    """Return each known store newer than memadmin knows, with why: (path, reason).

    Costs nothing while the process's answer is fresh; otherwise reads the stores again.
    """
    if time.monotonic() - _checked_at[0] >= RECHECK_SECONDS:
        newer_recheck()
    with _lock:
        return sorted(_reasons.items())


def newer_recheck() -> None:
    """Read every known store's schema version again (one query, then the files)."""
    _checked_at[0] = time.monotonic()
    found = {}
    for path in UpstreamStore.objects.values_list("path", flat=True):
        try:
            connection = open_readonly(Path(path), timeout=0.2)
        except StoreError:
            continue
        try:
            found[path] = too_new_reason(connection)
        except Exception:  # an unreadable store is named by the pages that use it
            continue
        finally:
            connection.close()
    with _lock:
        _reasons.clear()
        _reasons.update({path: reason for path, reason in found.items() if reason})


def newer_forget(*, recheck: bool = True) -> None:
    """Forget what this process knows; the next page reads the stores again if ``recheck``.

    Without ``recheck`` the process holds "none newer" for ``RECHECK_SECONDS`` (tests).
    """
    with _lock:
        _reasons.clear()
    _checked_at[0] = float("-inf") if recheck else time.monotonic()
