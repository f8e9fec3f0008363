"""System check: memories whose category the project's pack does not define.

It reads the data, not the configuration, so it is a database check, as Django tags them: it
runs with `manage.py check --database default` (or `--tag memadmin`), not with every command
nor with `check --deploy`, whose gate (`--fail-level WARNING`) is about how the site is set
up. A store with flagged memories is a fine deployment; the Import/export page lists them.
"""

from django.core.checks import Tags, Warning, register
from django.db import DatabaseError


@register(Tags.database, "memadmin")
def memories_in_unknown_categories(app_configs, **kwargs):
    """Warn about every project holding memories in categories its pack does not define."""
    from .selectors import unknown_category_counts

    try:
        found = unknown_category_counts()
    except DatabaseError:
        return []  # tables not migrated yet
    return [
        Warning(
            f"Project {project} holds {count} memories in category {category}, "
            "which its pack does not define.",
            hint="Recategorise them, or install a pack that defines the category.",
            id="memadmin.W001",
        )
        for project, category, count in found
    ]
