"""`manage.py bench_sync` at a tiny size: it runs every sync it times, and guards its database.

Run as a real process (the command starts a child of its own): on SQLite against a fresh
file under --work, on PostgreSQL against a scratch database whose name contains "bench".
"""

import os
import sqlite3
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

from memadmin.devtools.sync_benchmark import build_apart
from tests import prepared

ROWS = 300


def bench_sync(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "bench_sync", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
    )


@pytest.fixture
def bench_environment(tmp_path, django_db_blocker):
    """Return an environment whose database bench_sync may flush (PostgreSQL: a scratch one)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memadmin.settings.local"}
    env.pop("DATABASE_URL", None)
    name = None
    if connection.vendor == "postgresql":
        name = settings.DATABASES["default"]["NAME"] + "_bench"
        env["DATABASE_URL"] = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/" + name
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
            # A copy of the run's migrated database when the test command made one: the
            # command's migrate then has nothing to do (on SQLite it migrates a new file).
            template = prepared.migrated_postgresql()
            copy = f' TEMPLATE "{template}"' if template else ""
            cursor.execute(f'CREATE DATABASE "{name}"{copy}')
    yield env
    if name:
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        with django_db_blocker.unblock():
            connection.close()


# A database test, so that run on its own it still gets the test database's connection
# (the scratch database is made through it), never the real database's name.
@pytest.mark.django_db(transaction=True)
def test_a_tiny_run_times_all_three_syncs_and_the_peak_memory(bench_environment, tmp_path):
    """First sync writes every row; the incremental ones run; each line names its target."""
    finished = bench_sync(bench_environment, "--rows", str(ROWS), "--work", str(tmp_path))
    assert finished.returncode == 0, finished.stdout + finished.stderr
    engine = connection.vendor
    lines = finished.stdout.splitlines()
    first = next(line for line in lines if "first sync, full (all new)" in line)
    assert first.startswith(f"{engine}: ") and "target < 15 s: met" in first
    assert f"{ROWS} new, 0 changed" in first
    assert any("incremental, nothing changed" in line for line in lines)
    changed = next(line for line in lines if "incremental, 1% changed and 0.5% deleted" in line)
    assert "gone" in changed and "target < 2 s" in changed
    assert any(line.startswith(f"{engine}: peak memory ") for line in lines)
    assert (tmp_path / f"pristine-{ROWS}.db").exists()


def test_it_refuses_a_database_whose_name_lacks_bench(tmp_path):
    """A DATABASE_URL naming a real database stops the command before anything is built."""
    env = {**os.environ, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/memadmin_real"}
    finished = bench_sync(env, "--rows", str(ROWS), "--work", str(tmp_path / "work"))
    assert finished.returncode != 0
    assert "whose name contains 'bench'" in finished.stderr
    assert not (tmp_path / "work").exists()


def test_the_store_is_built_in_a_child_process_and_a_failed_build_says_so(tmp_path):
    """The store is built apart (its memory is not the syncs' peak): the rows are there after,
    and a build that fails stops the run with its exit code, leaving no half-built store."""
    path = tmp_path / "pristine.db"
    build_apart(path, 30)
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("SELECT count(*) FROM memories").fetchone() == (30,)
    finally:
        connection.close()
    nowhere = tmp_path / "missing-folder" / "pristine.db"
    with pytest.raises(SystemExit, match="building the 30-row store failed"):
        build_apart(nowhere, 30)
    assert not nowhere.exists()
