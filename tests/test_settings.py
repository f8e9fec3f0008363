"""The embedded store's settings: WAL, a busy timeout and IMMEDIATE transactions."""

from django.db.backends.sqlite3.base import DatabaseWrapper

from memadmin.settings.base import BASE_DIR, _sqlite_database


def test_embedded_store_runs_in_wal_with_immediate_transactions(tmp_path, django_db_blocker):
    """A connection made from the default settings is in WAL mode and begins IMMEDIATE."""
    settings_dict = _sqlite_database(tmp_path / "store.sqlite3")
    wrapper = DatabaseWrapper(
        {
            **settings_dict,
            "TIME_ZONE": None,
            "CONN_MAX_AGE": 0,
            "CONN_HEALTH_CHECKS": False,
            "AUTOCOMMIT": True,
            "ATOMIC_REQUESTS": False,
            "TEST": {},
        }
    )
    try:
        with django_db_blocker.unblock(), wrapper.cursor() as cursor:
            assert cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert cursor.execute("PRAGMA busy_timeout").fetchone()[0] == 20_000
            assert cursor.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert wrapper.transaction_mode == "IMMEDIATE"
    finally:
        wrapper.close()


def test_default_store_lives_in_the_ignored_var_folder():
    """The default SQLite file is var/memadmin.sqlite3, and var/ is git-ignored."""
    assert _sqlite_database(BASE_DIR / "var" / "x")["NAME"].parent == BASE_DIR / "var"
    assert "var/" in (BASE_DIR / ".gitignore").read_text().splitlines()
