"""The stale queue's draft: each stale header drafted again from its details as they are now.

The structure assistant's drafting (`core.structure.redraft`) gives the header's text again
from its live details, in composite order; the queue shows it as a word diff against the
header, and "Accept the draft" writes it and marks the header synced in one step
(`stale_services.header_accept_draft`).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from memadmin.composites.models import CompositeMember
from memadmin.core.structure import redraft
from memadmin.core.tokens import TokenCounter, default_counter
from memadmin.core.worddiff import DiffOp, word_diff
from memadmin.memories.models import Memory

LIVE = (Memory.Status.ACTIVE, Memory.Status.PERMANENT)


@dataclass(frozen=True)
class HeaderDraft:
    """A header's text drafted again, and its word diff against the header as it is."""

    text: str
    diff: list[DiffOp]

    @property
    def differs(self) -> bool:
        return any(op.kind != "equal" for op in self.diff)


def header_drafts(
    headers: Sequence[Memory], *, counter: TokenCounter | None = None
) -> dict[int, HeaderDraft]:
    """Return each drafted header's draft, by the header's pk, in one query for all their
    details; a header written by hand has none."""
    counter = counter or default_counter()
    rows = (
        CompositeMember.objects.filter(
            composite__head__in=[header.pk for header in headers], member__status__in=LIVE
        )
        .order_by("composite_id", "position")
        .values_list("composite__head_id", "member_id", "member__content")
    )
    details: dict[int, dict[int, str]] = {header.pk: {} for header in headers}
    for head_id, member_id, content in rows:
        details[head_id].setdefault(member_id, content)
    drafts = {}
    for header in headers:
        text = redraft(header.content, list(details[header.pk].values()), counter=counter)
        if text is not None:  # a header written by hand is its writer's to edit
            drafts[header.pk] = HeaderDraft(text=text, diff=word_diff(header.content, text))
    return drafts
