"""Tell a sync on SQLite whether a writer is waiting for the write lock.

SQLite has no queue for its write lock: a writer that finds it taken polls (every 100 ms once
it has waited a while), so a sync writing chunk after chunk must leave it a gap. Pausing after
every chunk costs seconds on a large first sync when nobody waits. Instead, every memadmin
connection to SQLite holds a shared `flock` on a file beside the database while its
``BEGIN`` waits for the lock (`announce`, an execute wrapper installed on each new
connection), and the sync, between chunks, pauses only while someone holds it
(`let_writers_in`). A writer outside memadmin (the sqlite3 shell) is not seen: it waits at
most its busy timeout, as before this module.

The sync's chunks also leave the copying of the WAL back into the database file to
`checkpoint`, called between chunks, instead of each commit (`checkpoints_deferred`): a
checkpoint is two fsyncs and rewrites the pages the chunks share (index pages), and one
after every chunk of a large first sync cost seconds. It runs outside any transaction,
holding no write lock; other connections keep checkpointing at their own commits.
"""

import fcntl
import time
from contextlib import contextmanager, suppress
from pathlib import Path

from django.db import DatabaseError
from django.db import connection as default_connection

# How long the sync yields at most, between two chunks, to the writers waiting.
YIELD_SECONDS = 1.0
POLL_SECONDS = 0.002
# After a writer got the lock, how long the sync still waits for its next transactions.
GRACE_SECONDS = 0.1
# While checkpoints are deferred, `checkpoint` copies the WAL back every this many calls.
CHECKPOINT_EVERY = 8


def gate_path(connection) -> Path | None:
    """Return the gate file of an SQLite database on disk (None in memory or elsewhere)."""
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return None
    path = Path(str(connection.settings_dict["NAME"]))
    return path.with_name(path.name + ".writers")


def announce(execute, sql, params, many, context):
    """Run a statement; while a ``BEGIN`` waits for the write lock, hold the gate shared."""
    if not (isinstance(sql, str) and sql.startswith("BEGIN")):
        return execute(sql, params, many, context)
    path = gate_path(context["connection"])
    if path is None:
        return execute(sql, params, many, context)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH)
        return execute(sql, params, many, context)


def install(sender=None, connection=None, **kwargs) -> None:
    """Put `announce` on a new SQLite connection (the `connection_created` receiver)."""
    sqlite = connection is not None and connection.vendor == "sqlite"
    if sqlite and announce not in connection.execute_wrappers:
        connection.execute_wrappers.append(announce)


def writers_waiting(connection=default_connection) -> bool:
    """Return True when a memadmin connection waits in ``BEGIN`` for the write lock."""
    path = gate_path(connection)
    if path is None:
        return False
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def let_writers_in(connection=default_connection) -> float:
    """Leave the write lock to the writers waiting for it, if any; return the time waited.

    Called between two transactions of the sync. Nobody waiting: no pause at all. Otherwise
    a waiting writer takes the lock the moment the sync leaves it and lets go of the gate
    once its ``BEGIN`` returns; the sync then leaves a further GRACE_SECONDS, so that the
    next transactions of the same request get in too, and gives up after YIELD_SECONDS.
    """
    began = time.perf_counter()
    deadline = began + YIELD_SECONDS
    seen = False
    while time.perf_counter() < deadline:
        if writers_waiting(connection):
            seen = True
            time.sleep(POLL_SECONDS)
            continue
        if not seen:
            break
        time.sleep(GRACE_SECONDS)
        if not writers_waiting(connection):
            break
    return time.perf_counter() - began


@contextmanager
def checkpoints_deferred(connection=default_connection):
    """On an SQLite database on disk, within the block only `checkpoint` copies the WAL back.

    Call outside any transaction. At the end the connection checkpoints at its commits
    again, after one last checkpoint. Elsewhere (PostgreSQL, memory) it changes nothing.
    """
    if gate_path(connection) is None or connection.in_atomic_block:
        yield lambda: None
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        pages = cursor.fetchone()[0]
        cursor.execute("PRAGMA wal_autocheckpoint = 0")
    calls = 0

    def checkpoint() -> None:
        nonlocal calls
        calls += 1
        if calls % CHECKPOINT_EVERY == 0:
            _checkpoint(connection)

    try:
        yield checkpoint
    except BaseException:
        # The block's own error is the one to report: a lost connection fails here too.
        with suppress(DatabaseError):
            _restore(connection, pages)
        raise
    _restore(connection, pages)


def _restore(connection, pages: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")
    _checkpoint(connection)


def _checkpoint(connection) -> None:
    """Copy what the WAL holds back into the database, as far as readers allow (PASSIVE)."""
    if connection.in_atomic_block:
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
        cursor.fetchall()
