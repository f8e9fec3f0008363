"""A worker stopped in the middle of a refresh leaves nothing half-done and freshness going.

Real `manage.py run_worker` processes on a real store. One is killed (SIGKILL) while its
refresh waits for the store, which the agent holds locked; the agent then writes a row, and
a second worker brings it into memadmin within seconds of its start. Another is sent SIGTERM
while its refresh writes new rows: the sync is rolled back and the worker ends.
"""

import signal
import sqlite3
import subprocess
import sys

import pytest

from memadmin.core.hashing import normalized_hash
from tests.interop.conftest import PROJECT, manage, rows_for
from tests.interop.server_processes import ROOT
from tests.interop.worker.test_worker_refresh import _reader, _wait_for
from tests.upstream_store import BASE_TIME_MS, insert_rows

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


@pytest.mark.timeout(180)
@pytest.mark.django_db(transaction=True)
def test_sigterm_mid_sync_rolls_the_sync_back_and_the_worker_ends(shared_database, store, tmp_path):
    """SIGTERM while the refresh writes 20,000 new rows: past the grace time the sync is
    interrupted, its new rows taken out again, a failed run recorded, and the worker ends."""
    env = shared_database
    path = store(rows=rows_for(5), fts=False)
    manage(env, "sync_context_db", str(path), "--no-progress")
    agent = sqlite3.connect(path, isolation_level=None)
    agent.execute("BEGIN")
    insert_rows(agent, "memories", rows_for(20_005)[5:])
    agent.execute("COMMIT")
    agent.close()
    query = _reader(env)
    log = tmp_path / "worker.log"  # what the worker said, shown if it ends badly
    with log.open("w") as said:  # the worker keeps its own copy of the file
        worker = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "run_worker",
                *["--refresh-seconds", "1"],
                "--stop-grace",
                "0.2",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=said,
        )
    try:
        _wait_for(query, "SELECT count(*) > 5 FROM memories_memory", [(True,)], within=60)
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=10) == 0, log.read_text()[-4000:]
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    # All or nothing: the rows written before the stop were taken out again.
    assert query("SELECT count(*) FROM memories_memory") == [(5,)]
    # The interruption may land in SQL (a function of memadmin's called by SQLite, which
    # then reports its own error): the run says the sync stopped, whichever error it names.
    ((outcome, problems),) = query(
        "SELECT outcome, problems FROM interop_syncrun ORDER BY id DESC LIMIT 1"
    )
    assert outcome == "failed"
    assert "the sync stopped on an error, nothing was imported" in str(problems)
    # The next refresh, left to run, brings them all in.
    manage(env, "run_worker", "--batch")  # nothing queued: it only ends its lease
    manage(env, "sync_context_db", str(path), "--incremental", "--no-progress")
    assert query("SELECT count(*) FROM memories_memory") == [(20_005,)]
