"""Settings for the test suite: DATABASE_URL selects PostgreSQL, else SQLite in var/."""

from .base import *  # noqa: F403
from .base import VAR_DIR

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DEBUG = False
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEMADMIN_TEST_VAR_DIR = VAR_DIR / "test"

# PostgreSQL: the test database need not survive a crash, so a commit does not wait for its
# write-ahead log to reach the disk (the test command flushes every table after each test
# that commits: a third of that time was the wait).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    _options = DATABASES["default"].setdefault("OPTIONS", {})  # noqa: F405
    _options["options"] = f"{_options.get('options', '')} -c synchronous_commit=off".strip()
