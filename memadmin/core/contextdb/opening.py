"""Open a live store without ever writing to it, and name what is wrong when that fails.

The store is live: the agent may be writing to it in WAL mode at the same moment. So the
reader opens it with ``mode=ro`` and never with ``immutable=1`` (which would skip the WAL
and its locks and could read a half-written page), never changes the journal mode and never
checkpoints. SQLite may still create the ``-wal`` and ``-shm`` side files a WAL reader needs;
the database file itself is never written.
"""

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from memadmin.core.contextdb.errors import StoreError, StoreLocked
from memadmin.core.contextdb.rules import REQUIRED_MEMORY_COLUMNS, quote_identifier

SQLITE_MAGIC = b"SQLite format 3\x00"
SQLITE_HEADER_SIZE = 100
DEFAULT_TIMEOUT_SECONDS = 5.0

_LOCKED = {"SQLITE_BUSY", "SQLITE_LOCKED"}
_DAMAGED_PREFIXES = ("SQLITE_CORRUPT", "SQLITE_IOERR")


def store_uri(path: Path, mode: str) -> str:
    """Return the SQLite URI opening ``path`` in ``mode`` (``ro`` or ``rw``)."""
    return f"{path.resolve().as_uri()}?mode={mode}"


def check_file(path: Path) -> None:
    """Raise StoreError unless ``path`` is an existing file that starts like an SQLite database."""
    if not path.exists():
        raise StoreError(f"{path}: no such file")
    if not path.is_file():
        raise StoreError(f"{path}: not a file")
    try:
        with path.open("rb") as stream:
            header = stream.read(SQLITE_HEADER_SIZE)
    except OSError as error:
        raise StoreError(f"{path}: cannot be read ({error.strerror})") from error
    if not header.startswith(SQLITE_MAGIC):
        raise StoreError(f"{path}: not an SQLite database (file is not a database)")
    if len(header) < SQLITE_HEADER_SIZE:
        raise StoreError(f"{path}: the store file is damaged (shorter than an SQLite header)")


@contextmanager
def translated_errors(path: Path) -> Iterator[None]:
    """Turn SQLite errors raised inside the block into a StoreError that says what happened."""
    try:
        yield
    except sqlite3.DatabaseError as error:
        raise store_error(path, error) from error


def store_error(path: Path, error: sqlite3.DatabaseError) -> StoreError:
    """Return the StoreError explaining an SQLite error met while using the store at ``path``."""
    name = getattr(error, "sqlite_errorname", "") or ""
    if name == "SQLITE_NOTADB":
        return StoreError(f"{path}: not an SQLite database (file is not a database)")
    if name in _LOCKED or name.startswith("SQLITE_BUSY"):
        return StoreLocked(
            f"{path}: the store is locked by another process ({error}); try again shortly"
        )
    if name.startswith(_DAMAGED_PREFIXES):
        return StoreError(f"{path}: the store file is damaged ({error})")
    if name.startswith("SQLITE_CANTOPEN"):
        return StoreError(f"{path}: cannot be opened ({error})")
    return StoreError(f"{path}: SQLite error ({error})")


def open_readonly(
    path: str | Path, *, timeout: float = DEFAULT_TIMEOUT_SECONDS
) -> sqlite3.Connection:
    """Open any SQLite file read-only, safe beside a live writer; the caller closes it.

    The connection is in autocommit mode, so a caller wanting one snapshot across several
    queries wraps them in ``BEGIN`` ... ``COMMIT``. ``timeout`` is how long to wait for a lock.
    """
    path = Path(path)
    check_file(path)
    with translated_errors(path):
        connection = sqlite3.connect(
            store_uri(path, "ro"), uri=True, timeout=timeout, isolation_level=None
        )
        try:
            connection.execute("PRAGMA query_only = ON")
            connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        except BaseException:
            connection.close()
            raise
    return connection


def table_columns(connection: sqlite3.Connection, table: str) -> dict[str, str] | None:
    """Return the columns of ``table`` mapped to their declared types, or None without it."""
    exists = connection.execute(
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    if exists is None:
        return None
    rows = connection.execute(f"PRAGMA table_info({quote_identifier(table)})").fetchall()
    return {row[1]: row[2] for row in rows}


def memory_columns(connection: sqlite3.Connection, path: Path) -> dict[str, str]:
    """Return the columns of ``memories``; raise StoreError unless the file is a store."""
    columns = table_columns(connection, "memories")
    if columns is None:
        raise StoreError(f"{path}: not a magic-context store: no memories table")
    return columns


def require_memory_columns(columns: Mapping[str, str], path: Path) -> None:
    """Raise StoreError naming the required ``memories`` columns the store lacks."""
    missing = REQUIRED_MEMORY_COLUMNS - columns.keys()
    if missing:
        raise StoreError(
            f"{path}: the memories table lacks required columns: {', '.join(sorted(missing))}"
        )
