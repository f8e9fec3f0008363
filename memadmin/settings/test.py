"""Settings for the test suite: DATABASE_URL selects PostgreSQL, else SQLite (a file per process)."""

import atexit
import shutil
import tempfile
from pathlib import Path

from .base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DEBUG = False
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# SQLite: the test database is a file, as the dashboard's own is, not Django's default of one
# in memory. A database in memory is one connection, which a live server shares between its
# request threads and the test: two htmx requests at once then used it together, and SQLite
# answered "bad parameter or other API misuse" (a 500 in a browser test, now and then). On a
# file each thread has its own connection, with WAL, the busy timeout and the write gate as
# served. A folder per process (pytest-django adds each xdist worker's suffix to the name),
# removed with its lock and gate files when the process ends.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    _test_folder = tempfile.mkdtemp(prefix="memadmin-test-")
    atexit.register(shutil.rmtree, _test_folder, ignore_errors=True)
    DATABASES["default"]["TEST"] = {"NAME": str(Path(_test_folder) / "test.sqlite3")}  # noqa: F405

# PostgreSQL: the test database need not survive a crash, so a commit does not wait for its
# write-ahead log to reach the disk (the test command flushes every table after each test
# that commits: a third of that time was the wait).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    _options = DATABASES["default"].setdefault("OPTIONS", {})  # noqa: F405
    _options["options"] = f"{_options.get('options', '')} -c synchronous_commit=off".strip()
