"""Stores newer than memadmin knows, remembered per process for every page to name.

A store whose schema is beyond the newest memadmin was tested with is read-only
(`memadmin.core.contextdb.write_checks.too_new_reason`). Every page, with a project or
without, says so with the version and why; a page must not pay a query for it, so the
answer lives in this process's memory: filled whenever the write probe or a refresh reads a
store, and read again from the stores themselves at most every ``RECHECK_SECONDS`` (one
query for the stores' paths, then each file's ``schema_migrations``).
"""

import time
from pathlib import Path
from typing import NamedTuple

from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb.opening import open_readonly
from memadmin.core.contextdb.write_checks import too_new_reason
from memadmin.core.process_cache import ProcessCache

from ..models import UpstreamStore

RECHECK_SECONDS = 30.0
EVERY_STORE = "every store"  # the one key: the stores are read again all together


class Checked(NamedTuple):
    """The stores newer than memadmin knows (reason by path), as read at `at` (monotonic)."""

    at: float
    reasons: dict[str, str]


newer_checks: ProcessCache[Checked] = ProcessCache("stores newer than memadmin knows")


def newer_note(path: str | Path, reason: str) -> None:
    """Remember what a reader of the store at ``path`` found ("": not newer than known)."""

    def noted(checked: Checked) -> Checked:
        reasons = {name: why for name, why in checked.reasons.items() if name != str(path)}
        return checked._replace(reasons=reasons | ({str(path): reason} if reason else {}))

    newer_checks.update(EVERY_STORE, noted)


def newer_stores() -> list[tuple[str, str]]:
    """Return each known store newer than memadmin knows, with why: (path, reason).

    Costs nothing while the process's answer is fresh; otherwise reads the stores again.
    """
    checked = newer_checks.get(EVERY_STORE, None, lambda kept: _read_stores(), still=_recent)
    return sorted(checked.reasons.items())


def _recent(checked: Checked) -> bool:
    return time.monotonic() - checked.at < RECHECK_SECONDS


def _read_stores() -> Checked:
    """Read every known store's schema version again (one query, then the files)."""
    at = time.monotonic()
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
    return Checked(at, {path: reason for path, reason in found.items() if reason})


def newer_forget(*, recheck: bool = True) -> None:
    """Forget what this process knows; the next page reads the stores again if ``recheck``.

    Without ``recheck`` the process holds "none newer" for ``RECHECK_SECONDS`` (tests).
    """
    if recheck:
        newer_checks.pop(EVERY_STORE)
    else:
        newer_checks.put(EVERY_STORE, None, Checked(time.monotonic(), {}))
