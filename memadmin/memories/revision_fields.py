"""The store revisions a page showed, carried by its form to the write (lifecycle stores).

On a store with upstream's memory lifecycle every row has a ``revision`` the agent raises
with each change it makes, even one that moves no column memadmin shows. A page that acts
on memories (a merge, a revert, an archive, a bulk action) carries the revision of each as
it read them (``StoreRevisionsField``, written ``"pk:revision pk:revision"``); the service
hands each to its `StoreChange.expected_revision`, and the store transaction refuses a row
whose revision moved since, with nothing written. Empty: the page read none (no lifecycle
store, no store at all), and nothing is compared.
"""

import re
from collections.abc import Iterable, Mapping

from django import forms
from django.core.exceptions import ValidationError

from memadmin.projects.store import store_backend

from .models import Memory

_PAIR = re.compile(r"^(\d{1,18}):(\d{1,18})$")


def revisions_text(memories: Iterable[Memory]) -> str:
    """Return the store revisions of ``memories`` now, as the field carries them."""
    found = store_backend().memory_revisions(list(memories))
    return " ".join(f"{pk}:{revision}" for pk, revision in sorted(found.items()))


def revision_for(revisions: Mapping[int, int] | None, memory: Memory) -> int | None:
    """Return the revision the page showed for ``memory`` (None: not compared)."""
    return None if revisions is None else revisions.get(memory.pk)


class StoreRevisionsField(forms.CharField):
    """A hidden field holding the store revisions a page showed, cleaned to {pk: revision}."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", 100_000)
        kwargs.setdefault("widget", forms.HiddenInput)
        super().__init__(**kwargs)

    def clean(self, value) -> dict[int, int] | None:
        """Return {memory id: revision}, or None when the page carried none."""
        text = super().clean(value)
        if not text:
            return None
        found = {}
        for pair in text.split():
            match = _PAIR.match(pair)
            if match is None:
                raise ValidationError(
                    "The page's store revisions cannot be read; reload the page.",
                    code="bad_revisions",
                )
            found[int(match[1])] = int(match[2])
        return found
