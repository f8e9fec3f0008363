"""Tell a sync on SQLite whether a writer is waiting for the write lock.

SQLite has no queue for its write lock: a writer that finds it taken polls (every 100 ms once
it has waited a while), so a sync writing chunk after chunk must leave it a gap. Pausing after
every chunk costs seconds on a large first sync when nobody waits. Instead, every memadmin
connection to SQLite holds a shared `flock` on a file beside the database while its
``BEGIN`` waits for the lock (`announce`, an execute wrapper installed on each new
connection), and the sync, between chunks, pauses only while someone holds it
(`let_writers_in`). A writer outside memadmin (the sqlite3 shell) is not seen: it waits at
most its busy timeout, as before this module.
"""

import fcntl
import time
from pathlib import Path

from django.db import connection as default_connection

# How long the sync yields at most, between two chunks, to the writers waiting.
YIELD_SECONDS = 1.0
POLL_SECONDS = 0.002
# After a writer got the lock, how long the sync still waits for its next transactions.
GRACE_SECONDS = 0.1


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
