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
