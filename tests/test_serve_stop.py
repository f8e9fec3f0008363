"""`memadmin serve` stops whole: a stop signal ends the web server and the worker, and one
`serve` at a time runs on a store's directory. Real processes on a small real store."""

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.interop.conftest import rows_for
from tests.interop.server_processes import (
    ROOT,
    Browserless,
    environment,
    free_port,
    manage,
    migrated,
)
from tests.upstream_store import build_store

STOPPED_WITHIN = 10.0
PASSWORD = "serve-stop-password"

pytestmark = pytest.mark.timeout(180)


def _answers(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _children(pid: int) -> list[int]:
    """Return the pids of the processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _descendants(pid: int) -> list[int]:
    """Return the pids of ``pid``'s children, their children, and so on."""
    found = _children(pid)
    for child in list(found):
        found += _descendants(child)
    return found


def _serve_command(store: Path, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "memadmin",
        "serve",
        "--context-db",
        str(store),
        "--port",
        str(port),
    ]


def _running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "zombie" not in status


class Serve:
    """`python -m memadmin serve --context-db STORE --port P`, started as a service would."""

    def __init__(self, tmp_path: Path, *, ignore_sigint: bool = False, rows: int = 5):
        self.var_dir = tmp_path / "var"
        if not self.var_dir.exists():
            # What a first start's migrate leaves (tests/test_cli.py starts on nothing): these
            # tests stop what runs, and each migrate of a fresh database is some 5 s of CPU.
            migrated(self.var_dir)
        self.store = tmp_path / "context.db"
        if not self.store.exists():
            build_store(self.store, rows=rows_for(rows), fts=False)
        self.port = free_port()
        self.log = tmp_path / f"serve-{self.port}.log"
        env = environment(self.var_dir)
        env["XDG_DATA_HOME"] = str(tmp_path / "no-xdg")
        # A shell starting `serve &` without job control makes it ignore SIGINT.
        ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                _serve_command(self.store, self.port),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=ignore,
            )
        self.children: list[int] = []

    def wait_until_served(self) -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/login/", timeout=2)
            except OSError:
                time.sleep(0.2)
                continue
            self.children = _descendants(self.process.pid)
            if len(self.children) >= 2:  # the server answers; the worker runs too
                return
            time.sleep(0.2)
        raise AssertionError(f"serve did not answer within 90 s:\n{self.log.read_text()}")

    def left_running(self, within: float) -> list[int]:
        """Wait up to ``within`` s for serve's processes to end; return those still running."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            alive = [pid for pid in self.children if _running(pid)]
            if not alive and self.process.poll() is not None and not _answers(self.port):
                return []
            time.sleep(0.1)
        return [pid for pid in [self.process.pid, *self.children] if _running(pid)]

    def clean_up(self) -> None:
        for pid in [*self.children, *_descendants(self.process.pid), self.process.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.process.wait()


@pytest.fixture
def served(tmp_path):
    started = []

    def start(**options) -> Serve:
        serve = Serve(tmp_path, **options)
        started.append(serve)
        serve.wait_until_served()
        return serve

    yield start
    for serve in started:
        serve.clean_up()


def test_sigterm_stops_the_server_and_the_worker_and_a_second_serve_is_refused(served):
    """A second serve on the same directory is refused; SIGTERM then ends every process."""
    first = served()
    second = subprocess.run(
        _serve_command(first.store, first.port + 1),
        cwd=ROOT,
        env={**environment(first.var_dir), "XDG_DATA_HOME": str(first.var_dir / "no-xdg")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode == 1
    assert "another memadmin serve is already running on" in second.stderr
    assert f"(process {first.process.pid})" in second.stderr
    assert _answers(first.port)

    first.process.send_signal(signal.SIGTERM)
    assert first.left_running(STOPPED_WITHIN) == []
    assert first.process.returncode == 0


def test_sigint_stops_a_serve_started_in_the_background(served):
    """SIGINT ends serve and its children even when the shell made serve ignore it."""
    serve = served(ignore_sigint=True)
    serve.process.send_signal(signal.SIGINT)
    assert serve.left_running(STOPPED_WITHIN) == []


def test_the_children_stop_when_serve_is_killed(served):
    """A serve killed outright (SIGKILL) leaves no server answering and no worker writing."""
    serve = served()
    serve.process.kill()
    assert serve.left_running(STOPPED_WITHIN) == []


def _saves(serve: Serve, stop: threading.Event, outcomes: list, errors: list) -> None:
    """Save memory 1's importance through its edit form until ``stop``; note each outcome."""
    client = Browserless(f"http://127.0.0.1:{serve.port}")
    for _attempt in range(20):  # the first sync's writes may keep a request waiting
        try:
            client.login("admin", PASSWORD)
            break
        except urllib.error.HTTPError as error:
            errors.append(f"log-in: {error.code}")
            time.sleep(0.5)
    database = sqlite3.connect(serve.var_dir / "memadmin.sqlite3", timeout=10)
    importance = 1
    while not stop.is_set():
        pk, content, category, scope, status, updated = database.execute(
            "SELECT id, content, category, scope, status, updated_at "
            "FROM memories_memory WHERE upstream_id = 1"
        ).fetchone()
        importance = importance % 99 + 1
        fields = {"content": content, "category": category, "importance": importance}
        fields |= {"scope": scope, "status": status, "reason": "saved while serve stops"}
        try:
            client.post(f"/memories/{pk}/edit/", {**fields, "expected_updated_at": updated})
            outcomes.append(importance)
        except (OSError, urllib.error.URLError):
            outcomes.append(None)  # refused, or the server went away mid-request
        time.sleep(0.05)
    database.close()


def test_sigterm_during_a_sync_and_a_save_converges_on_the_next_start(served, tmp_path):
    """SIGTERM while the worker syncs the agent's 5,000 changes and a person saves: every
    process ends within 10 s, and after the next start memadmin holds what the store holds."""
    env = environment(tmp_path / "var")
    migrated(tmp_path / "var")
    manage(tmp_path / "var", "person", "add", "admin", "--role", "admin", "--password", PASSWORD)
    serve = served(rows=5_000)
    stop, outcomes, errors = threading.Event(), [], []
    saver = threading.Thread(target=_saves, args=(serve, stop, outcomes, errors))
    saver.start()
    try:
        agent = sqlite3.connect(serve.store, isolation_level=None)
        agent.execute(
            "UPDATE memories SET importance = 66, updated_at = updated_at + 5 WHERE id > 1"
        )
        agent.close()
        # The worker's refresh (every 2 s) reads and writes the 4,999 changes meanwhile.
        deadline = time.monotonic() + 60
        while not any(outcomes) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        serve.process.send_signal(signal.SIGTERM)
        assert serve.left_running(STOPPED_WITHIN) == []
    finally:
        stop.set()
        saver.join(timeout=60)
    assert any(outcomes), (outcomes[:5], errors[:3])

    restart = subprocess.run(
        [*_serve_command(serve.store, serve.port), "--no-serve"],
        cwd=ROOT,
        env={**env, "XDG_DATA_HOME": str(tmp_path / "no-xdg")},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert restart.returncode == 0, restart.stderr
    store = sqlite3.connect(serve.store)
    upstream = dict(store.execute("SELECT id, importance FROM memories"))
    store.close()
    database = sqlite3.connect(serve.var_dir / "memadmin.sqlite3")
    mirrored = dict(
        database.execute(
            "SELECT upstream_id, importance FROM memories_memory WHERE upstream_gone_at IS NULL"
        )
    )
    database.close()
    assert mirrored == upstream


def test_the_web_server_listens_only_once_serve_lets_it_in(tmp_path, monkeypatch):
    """`serve` starts the web server while it prepares the database: the server gets ready
    but answers nothing until let in; a server never let in ends without listening."""
    from memadmin.serve_processes import GatedServer

    var_dir = tmp_path / "var"
    migrated(var_dir)
    for key, value in environment(var_dir).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    refused = GatedServer(f"127.0.0.1:{free_port()}", cwd=ROOT)
    time.sleep(1)
    assert refused.process.poll() is None
    refused.close()
    assert refused.process.returncode is not None

    port = free_port()
    gated = GatedServer(f"127.0.0.1:{port}", cwd=ROOT)
    try:
        time.sleep(2)
        assert not _answers(port)
        process = gated.open()
        deadline = time.monotonic() + 60
        while not _answers(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=30) as page:
            assert page.status == 200
    finally:
        gated.close()
    assert process.returncode is not None
