"""Upstream's notion of time: integer milliseconds since the epoch."""

import time
from datetime import UTC, datetime


def now_ms() -> int:
    """Return the current time in milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


def ms_to_datetime(ms: int | None) -> datetime | None:
    """Return an aware UTC datetime for a millisecond timestamp, or None."""
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)
