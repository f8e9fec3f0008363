"""While the worker runs, the agent's writes to its store show up in memadmin within seconds.

A real `manage.py run_worker` process refreshes a synced store; the test writes to the
store as the agent would (a changed text, a new row, a deletion) and reads memadmin's
database until all three are there. No restart, no request.
"""

import sqlite3
import subprocess
import sys
import time

import pytest
from django.db import connection

from memadmin.core.hashing import normalized_hash
from tests.interop.conftest import PROJECT, manage, rows_for
from tests.upstream_store import BASE_TIME_MS

FRESH_WITHIN_SECONDS = 5.0


def _reader(env: dict):
    """Return a function running one query on the shared database, as another client would."""
    if connection.vendor == "postgresql":
        import psycopg

        url = env["DATABASE_URL"]

        def query(sql: str) -> list[tuple]:
            with psycopg.connect(url) as database:
                return database.execute(sql).fetchall()

        return query
    path = f"{env['MEMADMIN_VAR_DIR']}/memadmin.sqlite3"

    def query(sql: str) -> list[tuple]:
        database = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return database.execute(sql).fetchall()
        finally:
            database.close()

    return query


def _wait_for(query, sql: str, wanted, within: float) -> float:
    began = time.monotonic()
    while time.monotonic() - began < within:
        if query(sql) == wanted:
            return time.monotonic() - began
        time.sleep(0.1)
    raise AssertionError(f"{sql} did not give {wanted} within {within} s: {query(sql)}")


# A database test, so that run on its own it still gets the test database's connection
# (the shared scratch database is made through it), never the real database's name.
@pytest.mark.django_db(transaction=True)
def test_the_agents_writes_show_up_within_five_seconds(shared_database, store):
    """A text change, a new row and a deletion reach memadmin within 5 s, with one run."""
    env = shared_database
    path = store(rows=rows_for(20))
    manage(env, "sync_context_db", str(path), "--no-progress")
    query = _reader(env)
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "run_worker", "--refresh-seconds", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(
            query,
            "SELECT count(*) FROM interop_storewatermark WHERE checked_at IS NOT NULL "
            "AND check_ms >= 0 AND checked_at > (SELECT max(started_at) FROM interop_syncrun)",
            [(1,)],
            within=60,
        )
        later = BASE_TIME_MS + 3_600_000
        agent = sqlite3.connect(path, isolation_level=None)
        agent.execute(
            "UPDATE memories SET content = 'Changed by the agent.', normalized_hash = ?, "
            "updated_at = ? WHERE id = 3",
            (normalized_hash("Changed by the agent."), later),
        )
        agent.execute("DELETE FROM memories WHERE id = 4")
        agent.execute(
            "INSERT INTO memories (project_path, category, content, normalized_hash, "
            "first_seen_at, created_at, updated_at, last_seen_at) "
            "VALUES (?, 'NAMING', 'Written by the agent.', ?, ?, ?, ?, ?)",
            (PROJECT, normalized_hash("Written by the agent."), later, later, later, later),
        )
        agent.close()
        took = _wait_for(
            query,
            "SELECT (SELECT content FROM memories_memory WHERE upstream_id = 3), "
            "(SELECT upstream_gone_at IS NOT NULL FROM memories_memory WHERE upstream_id = 4), "
            "(SELECT count(*) FROM memories_memory WHERE content = 'Written by the agent.')",
            [("Changed by the agent.", True, 1)],
            within=FRESH_WITHIN_SECONDS,
        )
        assert took < FRESH_WITHIN_SECONDS
        assert query("SELECT count(*), sum(new), sum(changed), sum(gone) FROM interop_syncrun") == [
            (2, 21, 1, 1)
        ]
    finally:
        worker.terminate()
        worker.wait(timeout=30)
