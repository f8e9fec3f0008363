"""Read categories: the one source of truth for a project's category list.

Forms, the tool enum, the facts parser, the prompt tags and the ledger's grouping all ask
`category_names` (or `categories_of`) rather than keeping lists of their own.
"""

from django.db.models import QuerySet

from .models import Category


def categories_of(project) -> QuerySet[Category]:
    """Return the project's categories in priority order."""
    return Category.objects.filter(project=project).order_by("priority", "name")


def category_names(project, *, writable_only: bool = False) -> list[str]:
    """Return the project's category names in priority order (writable ones only if asked)."""
    categories = categories_of(project)
    if writable_only:
        categories = categories.filter(legacy=False)
    return list(categories.values_list("name", flat=True))


def category_by_name(project, name: str) -> Category:
    """Return one category of the project, or raise Category.DoesNotExist."""
    return Category.objects.select_related("project").get(project=project, name=name)
