"""`memadmin serve`: which store it serves, and its start-up steps, run as real processes."""

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memadmin.cli import build_parser, choose_store, port_of, run_beside, store_var_dir
from memadmin.core import locations
from tests.interop.server_processes import ROOT, environment, migrated
from tests.upstream_store import build_store, make_row, write_sqlite_without_memories


def serve(var_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """Run `python -m memadmin serve ARGS --no-serve` on its own database in `var_dir`."""
    env = environment(var_dir)
    env.pop("MEMADMIN_CONTEXT_DB", None)
    env["XDG_DATA_HOME"] = str(var_dir / "no-xdg")
    return subprocess.run(
        [sys.executable, "-m", "memadmin", "serve", *args, "--no-serve"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def args(*words: str):
    return build_parser().parse_args(["serve", *words])


def test_help_lists_the_options():
    """`memadmin serve --help` names the stores and the port, and exits 0."""
    done = subprocess.run(
        [sys.executable, "-m", "memadmin", "serve", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0
    for option in ("--context-db PATH", "--demo", "--port", "--no-serve", "MEMADMIN_CONTEXT_DB"):
        assert option in done.stdout


def test_demo_and_a_store_cannot_both_be_asked_for():
    """`--demo` with `--context-db` is refused with exit status 2."""
    with pytest.raises(SystemExit) as refused:
        args("--demo", "--context-db", "x.db")
    assert refused.value.code == 2


def test_the_store_served_is_the_first_that_applies(tmp_path):
    """--demo, then --context-db, then MEMADMIN_CONTEXT_DB, then the default store if it exists."""
    default = tmp_path / "cortexkit" / "magic-context" / "context.db"
    env = {"XDG_DATA_HOME": str(tmp_path), "MEMADMIN_CONTEXT_DB": "/from/env.db"}
    assert choose_store(demo=True, context_db="/named.db", environ=env) == (None, False)
    assert choose_store(demo=False, context_db="/named.db", environ=env) == (
        Path("/named.db"),
        False,
    )
    assert choose_store(demo=False, context_db=None, environ=env) == (Path("/from/env.db"), False)
    env.pop("MEMADMIN_CONTEXT_DB")
    assert choose_store(demo=False, context_db=None, environ=env) == (None, False)
    default.parent.mkdir(parents=True)
    default.write_bytes(b"")
    assert choose_store(demo=False, context_db=None, environ=env) == (default, True)


def test_the_port_comes_from_the_option_the_positional_or_the_environment():
    """--port N and a bare PORT both name the port; $PORT, then 8000, otherwise."""
    assert port_of(args("--port", "8123"), {}) == 8123
    assert port_of(args("8124"), {}) == 8124
    assert port_of(args(), {"PORT": "8125"}) == 8125
    assert port_of(args(), {}) == 8000


def test_a_store_keeps_the_directory_the_shell_script_gave_it(tmp_path):
    """The directory's digest is the one `printf %s PATH | sha256sum` gave, so old syncs stay."""
    store = Path("/home/someone/.local/share/cortexkit/magic-context/context.db")
    shell = subprocess.run(
        ["bash", "-c", f"printf '%s' '{store}' | sha256sum | cut -c1-12"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert store_var_dir(store, {}) == locations.default_var_dir({}) / "stores" / shell


def test_a_store_is_synced_and_gets_one_admin(tmp_path):
    """The first start syncs the store and prints a new admin's password; the next does neither."""
    store = build_store(
        tmp_path / "context.db", rows=[make_row(content="Deploys go out on Tuesdays")]
    )
    var_dir = tmp_path / "var"
    first = serve(var_dir, "--context-db", str(store))
    assert first.returncode == 0, first.stderr
    assert "created admin (admin), password: " in first.stdout
    assert "1 new" in first.stdout
    assert f"serving {store.resolve()}, synced into {var_dir}" in first.stdout
    assert (var_dir / "memadmin.sqlite3").is_file()

    again = serve(var_dir, "--context-db", str(store))
    assert again.returncode == 0, again.stderr
    assert "created admin" not in again.stdout
    assert "nothing changed since the last sync" in again.stdout


def test_a_refused_sync_stops_the_start(tmp_path):
    """A file that is not a magic-context store stops the start with exit status 1."""
    store = write_sqlite_without_memories(tmp_path / "context.db")
    migrated(tmp_path / "var")  # a first start's migrate is the store test's above
    done = serve(tmp_path / "var", "--context-db", str(store))
    assert done.returncode == 1
    assert f"serve: the sync of {store.resolve()} was refused" in done.stderr


def test_a_missing_store_stops_the_start(tmp_path):
    """A --context-db that names no file stops with exit status 1, before any database is made."""
    done = serve(tmp_path / "var", "--context-db", str(tmp_path / "missing.db"))
    assert done.returncode == 1
    assert "missing.db: no such file" in done.stderr
    assert not (tmp_path / "var").exists()


def test_the_worker_stops_when_the_server_stops(tmp_path):
    """The background worker is ended when the foreground server exits."""
    pid_file = tmp_path / "worker.pid"
    worker = [
        sys.executable,
        "-c",
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)",
    ]
    server = [
        sys.executable,
        "-c",
        f"import os, time\nwhile not os.path.exists({str(pid_file)!r}): time.sleep(0.05)",
    ]
    started = time.monotonic()
    assert run_beside(worker, server, cwd=ROOT) == 0
    assert time.monotonic() - started < 60
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_the_demo_is_seeded_when_no_store_is_named(tmp_path):
    """With no store named or found, the demo is seeded and its log-in printed.

    A first start's migrate is the store test's above, and the wheel's `serve --demo`
    (tests/test_wheel.py): this one starts from a migrated copy."""
    migrated(tmp_path / "var")
    done = serve(tmp_path / "var")
    assert done.returncode == 0, done.stderr
    assert "log in as admin (password memadmin-demo)" in done.stdout
    assert (tmp_path / "var" / "memadmin.sqlite3").is_file()


@pytest.mark.django_db
def test_a_restart_serves_at_once_and_leaves_the_changes_to_the_worker(tmp_path, monkeypatch):
    """A store synced before is not read again before serving: the worker's first refresh
    brings its changes in. The first start, and a start without a server, sync it first."""
    import io

    from memadmin.cli import prepare
    from memadmin.memories.models import Memory

    monkeypatch.setenv("MEMADMIN_VAR_DIR", str(tmp_path / "var"))
    store = build_store(tmp_path / "context.db", rows=[make_row(content="Deploys on Tuesdays")])
    first = io.StringIO()
    prepare(store, 8000, first, worker_syncs=True)
    assert "1 new" in first.getvalue()
    connection = sqlite3.connect(store)
    with connection:
        connection.execute("UPDATE memories SET importance = 90, updated_at = updated_at + 5")
    connection.close()
    restart = io.StringIO()
    prepare(store, 8000, restart, worker_syncs=True)
    assert "synced before; the background worker brings in what changed" in restart.getvalue()
    assert Memory.objects.get().importance == 50
    prepare(store, 8000, io.StringIO(), worker_syncs=False)
    assert Memory.objects.get().importance == 90
