"""A worker killed in the middle of a refresh does not stop freshness: the next worker goes on.

Real `manage.py run_worker` processes on a real store: the first is killed (SIGKILL) while
its refresh waits for the store, which the agent holds locked; the agent then writes a row,
and a second worker brings it into memadmin within seconds of its start.
"""

import signal
import sqlite3
import subprocess
import sys

import pytest

from memadmin.core.hashing import normalized_hash
from tests.interop.conftest import PROJECT, manage, rows_for
from tests.interop.server_processes import ROOT
from tests.interop.test_worker_refresh import _reader, _wait_for
from tests.upstream_store import BASE_TIME_MS

ARRIVES_WITHIN_SECONDS = 10.0
REFRESH_RUNNING = (
    "SELECT count(*) FROM django_tasks_database_dbtaskresult "
    "WHERE status = 'RUNNING' AND task_path LIKE '%stores_refresh'"
)


def _worker(env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "run_worker", "--refresh-seconds", "1"],
        cwd=ROOT,
        env={**env, "MEMADMIN_STORE_TIMEOUT": "30"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _agent_writes(agent: sqlite3.Connection, text: str) -> None:
    later = BASE_TIME_MS + 3_600_000
    agent.execute(
        "INSERT INTO memories (project_path, category, content, normalized_hash, "
        "first_seen_at, created_at, updated_at, last_seen_at) "
        "VALUES (?, 'NAMING', ?, ?, ?, ?, ?, ?)",
        (PROJECT, text, normalized_hash(text), later, later, later, later),
    )


@pytest.mark.timeout(180)
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_refresh_does_not_stop_the_next_one(shared_database, store):
    """After SIGKILL mid-refresh, a new worker brings the agent's next write in within seconds."""
    env = shared_database
    path = store(rows=rows_for(5), wal=False)  # a writer's lock keeps readers out
    manage(env, "sync_context_db", str(path), "--no-progress")
    query = _reader(env)
    agent = sqlite3.connect(path, isolation_level=None, timeout=30)
    agent.execute("BEGIN EXCLUSIVE")
    first = _worker(env)
    second = None
    try:
        _wait_for(query, REFRESH_RUNNING, [(1,)], within=60)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        _agent_writes(agent, "Written after the crash.")
        agent.execute("COMMIT")

        second = _worker(env)  # its start (Django's set-up) counts in the time
        _wait_for(
            query,
            "SELECT count(*) FROM memories_memory WHERE content = 'Written after the crash.'",
            [(1,)],
            within=ARRIVES_WITHIN_SECONDS,
        )
        # The dead worker's refresh was closed, not left running.
        assert query(
            "SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = 'FAILED' "
            "AND exception_class_path LIKE '%WorkerDied'"
        ) == [(1,)]
    finally:
        agent.close()
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=30)
