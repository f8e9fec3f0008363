"""A large SQLite page cache on memadmin's connection for the length of a sync, and only then.

The web processes keep SQLite's default page cache (2 MB, see `settings.base`): a ledger
read goes through every page once and keeps its rows itself. A sync is the other way round:
its chunks insert, index and size tens of thousands of rows, and with a 2 MB cache the
450,000-row first sync peaked at 529 MB where a 64 MB cache keeps it at 277 MB (`manage.py
bench_sync --rows 450000`). So a sync's connection is given the large cache while it runs,
and its own size again afterwards, which lets the pages go.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection

SYNC_CACHE_KIB = 65536  # PRAGMA cache_size takes a negative number as KiB


@contextmanager
def sync_page_cache() -> Iterator[None]:
    """Give memadmin's SQLite connection a 64 MB page cache until the block ends."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (before,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size=-{SYNC_CACHE_KIB}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size={int(before)}")
