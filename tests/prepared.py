"""What the test command makes once for all its passes, instead of once in every test process.

Migrating a fresh database costs some 5 s of CPU, nearly all of it Django rendering the
migration state, and every test process did it two or three times: its test database, the
database its server and worker processes start from (`server_processes.migrated`, or on
PostgreSQL `migrated_template`), and each engine's `alone` pass again, with the 100,000-row
store its test builds (7 s). `.ci/test` makes them here once, before the passes (the store
while they run), and names them to every pass:

- `MEMADMIN_TEST_MIGRATED_VAR`: an instance folder whose SQLite database `migrate` made;
- `MEMADMIN_TEST_MIGRATED_PG`: a PostgreSQL database `migrate` made, beside the test ones,
  that test databases are made from (`CREATE DATABASE ... TEMPLATE`);
- `MEMADMIN_TEST_BIG_STORE`: the alone test's 100,000-row store.

Each is made from this checkout, in the same run, so it is never older than the migrations.
Without them (pytest run by hand) every process migrates and builds for itself, as before.

    python -m tests.prepared sqlite VAR_DIR
    python -m tests.prepared postgresql URL      (URL names the database to make)
    python -m tests.prepared drop-postgresql URL
    python -m tests.prepared big-store PATH
"""

import os
import shutil
import sys
from pathlib import Path

MIGRATED_VAR = "MEMADMIN_TEST_MIGRATED_VAR"
MIGRATED_PG = "MEMADMIN_TEST_MIGRATED_PG"
BIG_STORE = "MEMADMIN_TEST_BIG_STORE"


def migrated_var() -> Path | None:
    """Return the instance folder migrated for the whole run, if the test command made one."""
    folder = os.environ.get(MIGRATED_VAR)
    return Path(folder) if folder and (Path(folder) / "memadmin.sqlite3").is_file() else None


def migrated_postgresql() -> str | None:
    """Return the name of the PostgreSQL database migrated for the whole run, if any."""
    return os.environ.get(MIGRATED_PG) or None


def big_store() -> Path | None:
    """Return the 100,000-row store built for the whole run, if the test command built one."""
    path = os.environ.get(BIG_STORE)
    return Path(path) if path and Path(path).is_file() else None


def clone_test_database(connection) -> bool:
    """Make `connection`'s test database a copy of the run's migrated database; return
    whether it did (then Django keeps it as found: `setup_databases(keepdb=True)` migrates
    nothing, and `drop_test_database` removes it at the end)."""
    name = connection.creation._get_test_db_name()
    if connection.vendor == "sqlite":
        template = migrated_var()
        if template is None:
            return False
        shutil.copyfile(template / "memadmin.sqlite3", name)
        return True
    template = migrated_postgresql() if connection.vendor == "postgresql" else None
    if template is None:
        return False
    with connection.creation._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cursor.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return True


def drop_test_database(connection) -> None:
    """Remove a test database `clone_test_database` made (SQLite's goes with its folder)."""
    if connection.vendor != "postgresql":
        return
    name = connection.settings_dict["NAME"]
    connection.close()
    with connection.creation._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _server(url: str):
    import psycopg

    return psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True)


def main(argv: list[str]) -> None:
    # The tests' own ways of running `manage.py` (imported here: they import this module).
    from tests.interop.conftest import manage
    from tests.interop.server_processes import manage as manage_in

    what, where = argv
    if what == "sqlite":
        manage_in(Path(where), "migrate", "--verbosity", "0")
    elif what == "postgresql":
        name = where.rsplit("/", 1)[1]
        with _server(where) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            server.execute(f'CREATE DATABASE "{name}"')
        settings = "memadmin.settings.local"
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings, "DATABASE_URL": where}
        manage(env, "migrate", "--verbosity", "0")
    elif what == "drop-postgresql":
        with _server(where) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{where.rsplit("/", 1)[1]}" WITH (FORCE)')
    elif what == "big-store":
        from memadmin.devtools.sync_benchmark import build
        from tests.interop.writing.test_sync_locks import ROWS

        part = Path(where + ".part")  # whole or absent: the alone pass waits for it
        build(part, ROWS)
        part.replace(where)
    else:
        raise SystemExit(f"unknown: {what} (sqlite, postgresql, drop-postgresql, big-store)")


if __name__ == "__main__":
    main(sys.argv[1:])
