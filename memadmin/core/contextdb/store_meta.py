"""Write keys into a store's ``context_store_meta``: the one write the dashboard makes upstream.

Upstream's generic key/value table is the only place written, and only the given keys:
every other table, ``memories`` above all, is left alone. Before writing, a consistent copy
of the store is taken with SQLite's backup API while this writer already holds the write
lock, so the copy is exactly the store as it was just before the keys changed.

SQLite cannot back up through the connection holding the write transaction (the backup
step reports SQLITE_BUSY forever), so a second, read-only connection takes the copy: the
write lock leaves readers free, and nothing is written before the copy is complete.
"""

import sqlite3
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from memadmin.core.contextdb.errors import StoreError
from memadmin.core.contextdb.opening import (
    DEFAULT_TIMEOUT_SECONDS,
    check_file,
    memory_columns,
    open_readonly,
    store_uri,
    table_columns,
    translated_errors,
)
from memadmin.core.contextdb.write_checks import too_new_reason

PROTECTED_KEYS = frozenset({"store_uuid"})


def write_store_meta(
    path: str | Path,
    entries: Mapping[str, str],
    *,
    backup_dir: str | Path,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> Path:
    """Back the store up into ``backup_dir``, upsert ``entries`` in one transaction; return the copy.

    Raise StoreError when the file is not a magic-context store with a
    ``context_store_meta(key, value)`` table, when an entry is not a pair of strings, or
    when a key is one upstream owns (``store_uuid``). Keys are written as given: choosing a
    namespace is the caller's business.
    """
    path = Path(path)
    _check_entries(entries)
    check_file(path)
    with translated_errors(path):
        # mode=rw: a missing file is an error, never a new empty database.
        connection = sqlite3.connect(
            store_uri(path, "rw"), uri=True, timeout=timeout, isolation_level=None
        )
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                _check_store(connection, path)
                backup_path = _backup(path, Path(backup_dir), timeout=timeout)
                connection.executemany(
                    "INSERT INTO context_store_meta (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    list(entries.items()),
                )
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        finally:
            connection.close()
    return backup_path


def _check_entries(entries: Mapping[str, str]) -> None:
    """Raise StoreError unless every entry is a non-empty key and a text value."""
    if not entries:
        raise StoreError("no entries to write")
    for key, value in entries.items():
        if not isinstance(key, str) or not key:
            raise StoreError(f"key {key!r} is not a non-empty string")
        if not isinstance(value, str):
            raise StoreError(f"value of {key!r} is {type(value).__name__}, not a string")
        if key in PROTECTED_KEYS:
            raise StoreError(f"key {key!r} belongs to upstream and is never written")


def _check_store(connection: sqlite3.Connection, path: Path) -> None:
    """Raise StoreError unless the file is a store with a usable ``context_store_meta``."""
    memory_columns(connection, path)
    too_new = too_new_reason(connection)
    if too_new:
        raise StoreError(f"{path}: {too_new}")
    columns = table_columns(connection, "context_store_meta")
    if columns is None:
        raise StoreError(f"{path}: the store has no context_store_meta table")
    if not {"key", "value"} <= columns.keys():
        raise StoreError(f"{path}: context_store_meta lacks its key and value columns")


def _backup(path: Path, backup_dir: Path, *, timeout: float) -> Path:
    """Copy the store's committed state into a new file under ``backup_dir``; return its path."""
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    backup_path = backup_dir / f"{path.stem}-{stamp}.db"
    suffix = 1
    while backup_path.exists():
        suffix += 1
        backup_path = backup_dir / f"{path.stem}-{stamp}-{suffix}.db"
    source = open_readonly(path, timeout=timeout)
    target = sqlite3.connect(backup_path)
    try:
        source.backup(target, progress=_give_up_after(timeout, path))
    except BaseException:
        target.close()
        backup_path.unlink(missing_ok=True)
        raise
    finally:
        source.close()
    target.close()
    return backup_path


def _give_up_after(timeout: float, path: Path) -> Callable[[int, int, int], None]:
    """Return a backup progress callback that stops a copy kept busy longer than ``timeout``.

    Python's backup loop otherwise retries a busy step forever.
    """
    deadline = time.monotonic() + timeout

    def progress(status: int, remaining: int, total: int) -> None:
        if status in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) and time.monotonic() > deadline:
            raise StoreError(f"{path}: the store stayed locked while being backed up; try again")

    return progress
