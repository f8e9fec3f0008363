"""One sync at a time, across processes, without holding a database transaction open; and
the sync's last transaction holding everyone else's writes of what it compares.

A sync now writes in several short transactions, so the lock that serialises syncs cannot be
a transaction's. On PostgreSQL it is a session-level advisory lock; on SQLite an exclusive
`flock` on a file beside the database. Both are released by the operating system or the
server when the process holding them dies, so a crashed worker never leaves a stale lock.
"""

import fcntl
import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

from memadmin.memories.models import Memory

from ..models import Workspace

SYNC_LOCK = 0x6D656D61  # the advisory lock key of syncs on PostgreSQL ("mema")
POLL_SECONDS = 0.05


class SyncBusy(Exception):
    """Another sync holds the lock."""


def _lock_path() -> Path:
    """Return the lock file beside the database (in the temporary folder for one in memory).

    A database in memory belongs to one process, so its lock file is that process's own.
    """
    name = str(connection.settings_dict["NAME"])
    if connection.is_in_memory_db():
        digest = hashlib.sha256(f"{os.getpid()}:{name}".encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"memadmin-{digest}.sync-lock"
    path = Path(name)
    return path.with_name(path.name + ".sync-lock")


@contextmanager
def sync_lock(*, wait: float | None = None) -> Iterator[None]:
    """Hold the sync lock inside the block; raise SyncBusy when it is not free in time.

    ``wait`` is how many seconds to wait for it (None: as long as it takes, 0: not at all).
    """
    deadline = None if wait is None else time.monotonic() + wait
    if connection.vendor == "postgresql":
        with _advisory(deadline):
            yield
        return
    with _file_lock(deadline):
        yield


def _expired(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline


@contextmanager
def _advisory(deadline: float | None) -> Iterator[None]:
    with connection.cursor() as cursor:
        while True:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [SYNC_LOCK])
            if cursor.fetchone()[0]:
                break
            if _expired(deadline):
                raise SyncBusy("another sync is running")
            time.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [SYNC_LOCK])


@contextmanager
def _file_lock(deadline: float | None) -> Iterator[None]:
    path = _lock_path()
    with path.open("a") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if _expired(deadline):
                    raise SyncBusy("another sync is running") from None
                time.sleep(POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def writers_held() -> None:
    """Until the transaction ends, make every other writer of a memory or a workspace wait.

    Called first in a sync's last transaction, which compares memadmin's memories and
    workspaces with what the sync read, then writes them. On SQLite its IMMEDIATE transaction
    already holds the one write lock from its start. On PostgreSQL (READ COMMITTED) a save
    committed between the comparison and the write was written over by the sync's values (a
    person's save lost: seen on CI). EXCLUSIVE mode lets plain reads through and conflicts with
    every row lock and write of the tables, a save's SELECT ... FOR UPDATE included, so a
    save waits before it touches anything, the store included, until the sync commits.
    """
    if connection.vendor == "postgresql":
        tables = ", ".join(model._meta.db_table for model in (Memory, Workspace))
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {tables} IN EXCLUSIVE MODE")
