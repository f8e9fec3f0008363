"""How fresh memadmin's copy of each synced store is: when it was last read, and a warning.

The background worker reads each store's marks every 2 seconds (`incremental`), so a store
last read longer ago than STALE_AFTER_MS means the agent's changes since may be missing. The
sentences here are the product's own words, shown on the Import/export page and the
overview alike.
"""

import datetime
from dataclasses import dataclass

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.timesince import timesince

from memadmin.core.clock import now_ms

from ..models import UpstreamStore, WorkerLease
from .leases import lease_void

STALE_AFTER_MS = 2 * 60 * 1000


@dataclass(frozen=True)
class Freshness:
    """When one store was last read, and whether that is longer ago than expected."""

    store: UpstreamStore
    read_at: int
    age_ms: int
    worker_alive: bool

    @property
    def stale(self) -> bool:
        return self.age_ms > STALE_AFTER_MS

    @property
    def read_at_text(self) -> str:
        """Return when the store was last read, as "2026-12-02 03:27 (9 minutes ago)"."""
        moment = datetime.datetime.fromtimestamp(self.read_at / 1000, tz=datetime.UTC)
        now = moment + datetime.timedelta(milliseconds=self.age_ms)
        return (
            f"{date_format(timezone.localtime(moment), 'Y-m-d H:i:s')} "
            f"({timesince(moment, now)} ago)"
        )

    @property
    def warning(self) -> str:
        """Return the warning to show when the store is stale ("" when it is not)."""
        if not self.stale:
            return ""
        said = (
            f"memadmin last read {self.store.path} at {self.read_at_text}: the agent's "
            f"changes since then may be missing here (it is read every 2 seconds while "
            f"the background worker runs)."
        )
        if not self.worker_alive:
            return (
                f"{said} No background worker is running: start the dashboard with "
                f"`memadmin serve`, or run `manage.py run_worker`; Sync again reads it now."
            )
        return (
            f"{said} The worker is running: a long sync may be under way, or the store "
            f"cannot be read (see Recent syncs); Sync again reads it now."
        )


def stores_freshness(*, now: int | None = None) -> list[Freshness]:
    """Return the freshness of every synced store, the least fresh first."""
    now = now_ms() if now is None else now
    alive = any(not lease_void(lease, now=now) for lease in WorkerLease.objects.all())
    found = []
    for store in UpstreamStore.objects.select_related("watermark"):
        checked = getattr(getattr(store, "watermark", None), "checked_at", None) or 0
        read_at = max(checked, store.last_synced_at)
        found.append(Freshness(store, read_at, max(0, now - read_at), alive))
    return sorted(found, key=lambda freshness: -freshness.age_ms)
