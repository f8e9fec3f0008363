"""Settings for one person's machine: the embedded SQLite store in var/."""

from .base import *  # noqa: F403

# WhiteNoise serves static/ and django-htmx's htmx straight from the apps, with or without
# DEBUG, so `runserver` needs no `collectstatic` first.
WHITENOISE_USE_FINDERS = True
