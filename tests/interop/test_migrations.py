"""The squashed interop migrations build the database the migrations they replace built.

A fresh database, migrated with the app's migrations, and an upgraded one, migrated first
with the migrations as they were before the squash (`migrations_before`) and then with the
app's, end with the same tables, columns, indexes, constraints and triggers (both engines).
"""

import json
import subprocess
import sys

import pytest
from django.db import connection

from tests.interop.conftest import disk_environment, manage

BEFORE = "tests.interop.migrations_before_settings"

# The test database is only the door to the server: the two compared are scratch ones.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def scratch_database(tmp_path, django_db_blocker):
    """Return a function giving the environment of an empty database on disk, named `name`.

    SQLite: a file in the test's folder. PostgreSQL: a scratch database beside the test one.
    """
    made = []

    def make(name: str) -> dict:
        env = disk_environment(tmp_path / name)
        if connection.vendor == "postgresql":
            server, database = env["DATABASE_URL"].rsplit("/", 1)
            database = f"{database}_{name}"
            env["DATABASE_URL"] = f"{server}/{database}"
            with django_db_blocker.unblock(), connection.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{database}"')
                cursor.execute(f'CREATE DATABASE "{database}"')
            made.append(database)
        return env

    yield make
    if made:
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            for database in made:
                cursor.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        with django_db_blocker.unblock():
            connection.close()  # opened outside any test's transaction: leave none behind


def schema(env: dict) -> dict:
    """Return the schema of the environment's database (`schema_dump`)."""
    finished = subprocess.run(
        [sys.executable, "-m", "tests.interop.schema_dump"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    return json.loads(finished.stdout)


def test_an_upgraded_database_ends_as_a_fresh_one(scratch_database, shared_database):
    """Migrating with the old files then the squashed set gives the fresh database's schema.

    The fresh one is `shared_database`: a copy of what `migrate` made of an empty database,
    once for the run or for this process (6 s of CPU saved), as every database the tests'
    servers start from is.
    """
    fresh = shared_database
    upgraded = scratch_database("upgraded")
    manage({**upgraded, "DJANGO_SETTINGS_MODULE": BEFORE}, "migrate", "--verbosity", "0")
    before = schema(upgraded)
    assert "0004_merge_sync_and_write" in before["applied"]  # built by the old files
    manage(upgraded, "migrate", "--verbosity", "0")

    fresh_schema, upgraded_schema = schema(fresh), schema(upgraded)
    # Applying the squash records the migrations it replaces too: both record all of them.
    assert "0001_squashed_0009_merge_workspace_edits" in fresh_schema["applied"]
    assert upgraded_schema["applied"] == fresh_schema["applied"]
    assert upgraded_schema["tables"] == fresh_schema["tables"]
    assert upgraded_schema["definitions"] == fresh_schema["definitions"]
    assert before["tables"] == upgraded_schema["tables"]  # the upgrade itself changes nothing
