"""The version of a composite a page showed, and the refusal of a change made over another.

A composite's version is a fingerprint of what its page and its delete confirmation show:
type, title, head, members in order and cursor, so any edit to one of them moves it. Every
form that changes a composite carries the fingerprint of the composite it showed; a service
given one refuses with CompositeChanged, writing nothing, when the composite moved since, and
when the form sent none (it could be changing anything).
"""

import hashlib
import json
from collections.abc import Sequence

from django.core.exceptions import ValidationError

from .models import Composite
from .positions import member_ids, member_rows


class CompositeChanged(ValidationError):
    """The composite changed since the person saw it; nothing was written.

    `unseen` is for a form that did not say which version it acts on (no fingerprint): it
    could be changing anything, so it is refused as a stale one is. `deleting` is for the
    delete confirmation; otherwise the refusal is of a change.
    """

    def __init__(self, *, unseen: bool = False, deleting: bool = True):
        if unseen:
            why = (
                "This confirmation did not say which version of the composite it confirms."
                if deleting
                else "This form did not say which version of the composite it changes."
            )
        else:
            why = (
                "Someone else changed this composite since you opened this page (its type, "
                "title, head, members or cursor)."
            )
        then = (
            "Nothing was deleted: check it as it is now and confirm again."
            if deleting
            else "Nothing was changed: check it as it is now and try again."
        )
        super().__init__(f"{why} {then}", code="composite_changed")


def fingerprint_of(composite: Composite, members: Sequence[int]) -> str:
    """Return the fingerprint of `composite` with these member memory ids, in order."""
    shown = [composite.type, composite.title, composite.head_id, list(members), composite.cursor]
    return hashlib.sha256(json.dumps(shown).encode()).hexdigest()[:32]


def composite_fingerprint(composite: Composite) -> str:
    """Return a digest of what a page shows of the composite, for its forms to carry."""
    return fingerprint_of(composite, member_ids(member_rows(composite)))


def refuse_changed(composite: Composite, expected: str | None) -> None:
    """Refuse with CompositeChanged unless `expected` is the composite's fingerprint now.

    None means the caller checks nothing (a service called by another service); an empty
    string is a form that sent no version, refused like a stale one. Call it under the
    composite's row lock, so nothing changes between the check and the write.
    """
    if expected is None:
        return
    if not expected:
        raise CompositeChanged(unseen=True, deleting=False)
    if expected != composite_fingerprint(composite):
        raise CompositeChanged(deleting=False)
