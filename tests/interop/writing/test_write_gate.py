"""Between its chunks, a sync yields SQLite's write lock only to writers that wait for it."""

import sqlite3
import threading
import time

import pytest
from django.db.utils import ConnectionHandler

from memadmin.interop.writing.write_gate import (
    CHECKPOINT_EVERY,
    checkpoints_deferred,
    let_writers_in,
    writers_waiting,
)


def _connection(path):
    handler = ConnectionHandler(
        {
            "default": {
                "ENGINE": "django.db.backends.sqlite3",
                "NAME": str(path),
                "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
            }
        }
    )
    return handler, handler["default"]


@pytest.fixture(autouse=True)
def _own_database(django_db_blocker):
    """These tests open a database file of their own, not the test database."""
    with django_db_blocker.unblock():
        yield


def test_nobody_waiting_means_no_pause(tmp_path):
    _handler, connection = _connection(tmp_path / "db.sqlite3")
    connection.ensure_connection()
    assert not writers_waiting(connection)
    assert let_writers_in(connection) < 0.05
    connection.close()


def test_a_writer_waiting_in_begin_is_seen_until_it_is_in(tmp_path):
    path = tmp_path / "db.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x INTEGER)")
    holder.execute("BEGIN IMMEDIATE")
    _handler, connection = _connection(path)
    connection.ensure_connection()
    entered = threading.Event()

    def write():
        # What Django's atomic() runs on SQLite, through the connection's execute wrappers.
        with connection.cursor() as cursor:
            cursor.execute("BEGIN IMMEDIATE")
            entered.set()
            cursor.execute("INSERT INTO t VALUES (1)")
            cursor.execute("COMMIT")

    writer = threading.Thread(target=write)
    connection.inc_thread_sharing()
    writer.start()
    deadline = time.monotonic() + 5
    while not writers_waiting(connection) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert writers_waiting(connection) and not entered.is_set()
    holder.execute("COMMIT")
    waited = let_writers_in(connection)
    writer.join(5)
    assert entered.is_set() and not writers_waiting(connection)
    assert waited < 1.0
    assert holder.execute("SELECT count(*) FROM t").fetchone() == (1,)
    connection.dec_thread_sharing()
    connection.close()
    holder.close()


def _pragma(connection, sql):
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()


def test_deferred_checkpoints_copy_the_wal_back_every_few_chunks_and_at_the_end(tmp_path):
    """Within the block commits leave the WAL alone; every CHECKPOINT_EVERY-th call copies it."""
    path = tmp_path / "db.sqlite3"
    _handler, connection = _connection(path)
    connection.ensure_connection()
    _pragma(connection, "PRAGMA journal_mode=WAL")
    _pragma(connection, "CREATE TABLE t (x TEXT)")
    _pragma(connection, "PRAGMA wal_checkpoint(PASSIVE)")
    empty = path.stat().st_size
    with checkpoints_deferred(connection) as checkpoint:
        assert _pragma(connection, "PRAGMA wal_autocheckpoint") == (0,)
        for _ in range(CHECKPOINT_EVERY - 1):
            with connection.cursor() as cursor:
                cursor.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 100)
            checkpoint()
        assert path.stat().st_size == empty  # all of it still in the WAL
        checkpoint()
        copied = path.stat().st_size
        assert copied > empty + 300_000
        with connection.cursor() as cursor:
            cursor.executemany("INSERT INTO t VALUES (?)", [("y" * 500,)] * 100)
        assert path.stat().st_size == copied
    assert path.stat().st_size > copied
    assert _pragma(connection, "PRAGMA wal_autocheckpoint") == (1000,)
    connection.close()


def test_deferred_checkpoints_are_restored_after_an_error(tmp_path):
    _handler, connection = _connection(tmp_path / "db.sqlite3")
    connection.ensure_connection()
    _pragma(connection, "PRAGMA journal_mode=WAL")
    with pytest.raises(RuntimeError), checkpoints_deferred(connection):
        raise RuntimeError("disk on fire")
    assert _pragma(connection, "PRAGMA wal_autocheckpoint") == (1000,)
    connection.close()
