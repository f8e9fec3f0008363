"""The hook through which criteria changes reach the magic-context store a project syncs from.

Taxonomy sits below interop, so interop registers the writer here (`InteropConfig.ready`).
A criteria service calls `criteria_written` inside its transaction once the category is
saved; the writer puts the project's criteria keys and surface hash into the store's
`context_store_meta` (the format of `manage.py export_criteria`), or raises
`CriteriaStoreRefused`, rolling memadmin's change back: nothing is written on either side.
"""

from typing import Protocol

from django.core.exceptions import ValidationError


class CriteriaStoreRefused(ValidationError):
    """The store refused the criteria; nothing was written on either side."""


class CriteriaWriter(Protocol):
    def written(self, project) -> None: ...


_writer: list[CriteriaWriter] = []


def register(writer: CriteriaWriter) -> None:
    """Make ``writer`` the one that criteria changes go through."""
    _writer[:] = [writer]


def criteria_written(project) -> None:
    """Write the project's criteria to its store (nothing for a project not synced)."""
    if _writer:
        _writer[0].written(project)
