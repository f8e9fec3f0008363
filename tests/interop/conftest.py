"""Fixtures for the interop tests: real upstream-shaped stores on disk, and their digests."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests import prepared
from tests.interop.server_processes import migrated
from tests.upstream_store import OTHER_PROJECT, PROJECT, build_store, make_row, make_session


def sha256(path: Path) -> str:
    """Return the SHA-256 of a file's bytes ("" when it does not exist)."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""


def side_file(path: Path, suffix: str) -> Path:
    """Return the path of a store's ``-wal`` or ``-shm`` file."""
    return path.with_name(path.name + suffix)


def rows_for(count: int, **overrides) -> list[dict]:
    """Return ``count`` distinct rows of the main project (ids 1..count once inserted)."""
    return [
        make_row(content=f"Fact {n}: the release script is scripts/release.sh.", **overrides)
        for n in range(1, count + 1)
    ]


@pytest.fixture
def store(tmp_path):
    """Return a factory building an upstream-shaped store; the newer column set by default."""

    def make(rows=None, sessions=None, name="context.db", **options) -> Path:
        if rows is None:
            rows = [
                *rows_for(4),
                make_row(content="Deploys need the VPN.", category="CONSTRAINTS"),
                make_row(content="Tabs are for tables only.", project_path=OTHER_PROJECT),
            ]
        if sessions is None:
            sessions = [
                make_session(),
                make_session(session_id="ses_old", system_prompt_hash="0ld"),
            ]
        return build_store(tmp_path / name, rows=rows, sessions=sessions, **options)

    return make


def disk_environment(work: Path) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memadmin.settings.local"}
    env["MEMADMIN_VAR_DIR"] = str(work / "var")
    url = os.environ.get("DATABASE_URL")
    if url:
        env["DATABASE_URL"] = (
            url.rsplit("/", 1)[0] + "/" + settings.DATABASES["default"]["NAME"] + "_locks"
        )
    return env


def manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    """Run a management command in its own process; fail with its output when it fails."""
    finished = subprocess.run(
        [sys.executable, "manage.py", *args], env=env, capture_output=True, text=True
    )
    assert finished.returncode == 0, f"manage.py {' '.join(args)}:\n{finished.stderr}"
    return finished


@pytest.fixture(scope="session")
def migrated_template(django_db_setup, django_db_blocker):
    """Return a function giving the name of a PostgreSQL database migrated once per process
    (beside the scratch database named), made on first use and dropped at the end, before the
    test database (`django_db_setup`) is; or the one the test command migrated for the whole
    run (tests/prepared.py)."""
    made: list[str] = []

    def template(env: dict) -> str:
        if (migrated_for_the_run := prepared.migrated_postgresql()) is not None:
            return migrated_for_the_run
        if not made:
            url = env["DATABASE_URL"]
            name = url.rsplit("/", 1)[1] + "_migrated"
            _recreate(name, django_db_blocker)
            manage(
                {**env, "DATABASE_URL": url.rsplit("/", 1)[0] + "/" + name}, "migrate", "-v", "0"
            )
            made.append(name)
        return made[0]

    yield template
    for name in made:
        _drop(name, django_db_blocker)


def _recreate(name: str, django_db_blocker, template: str | None = None) -> None:
    """Create the PostgreSQL database `name` anew: empty, or a copy of `template`."""
    copy = f' TEMPLATE "{template}"' if template else ""
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cursor.execute(f'CREATE DATABASE "{name}"{copy}')


def _drop(name: str, django_db_blocker) -> None:
    """Drop the PostgreSQL database `name`, whoever is still connected to it."""
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    with django_db_blocker.unblock():
        connection.close()  # opened outside any test's transaction: leave none behind


@pytest.fixture
def shared_database(tmp_path, django_db_blocker, migrated_template):
    """Return the environment of a fresh database on disk, migrated, that processes share.

    SQLite: a file in the test's folder. PostgreSQL: a scratch database beside the test one.
    Either is a copy of a database this process migrated once (`migrated`, and PostgreSQL's
    CREATE DATABASE ... TEMPLATE): what `migrate` leaves, without its 6 s of CPU each time.
    """
    env = disk_environment(tmp_path)
    if connection.vendor == "postgresql":
        name = env["DATABASE_URL"].rsplit("/", 1)[1]
        _recreate(name, django_db_blocker, template=migrated_template(env))
    else:
        migrated(tmp_path / "var")
    yield env
    if connection.vendor == "postgresql":
        _drop(name, django_db_blocker)


__all__ = ["OTHER_PROJECT", "PROJECT", "rows_for", "sha256", "side_file"]
