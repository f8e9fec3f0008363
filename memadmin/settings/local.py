"""Settings for one person's machine: the embedded SQLite store in var/."""

from .base import *  # noqa: F403
