"""Settings for one person's machine: the embedded SQLite store in var/."""

from .base import *  # noqa: F403

# WhiteNoise serves static/ and django-htmx's htmx straight from the apps, with or without
# DEBUG, so `runserver` needs no `collectstatic` first.
WHITENOISE_USE_FINDERS = True

# WhiteNoise warns at start-up when STATIC_ROOT does not exist, even when the finders serve
# every file; an empty folder in var/ (beside the database, made the same way) keeps the
# console to what a person needs to read.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405
