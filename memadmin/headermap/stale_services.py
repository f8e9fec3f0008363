"""Write header syncs: "this header's summary matches its details as they are now", and the
header's draft with its sync in one step."""

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite
from memadmin.core.clock import now_ms
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update

from .drafts import header_drafts
from .models import HeaderSync
from .stale_selectors import stale_header


class StaleReview(ValidationError):
    """The header's details changed since the queue showing them was loaded; nothing marked."""

    def __init__(self, header: Memory, *, unseen: bool = False):
        super().__init__(
            f"This request did not say which changes to #{header.display_id}'s details were "
            "reviewed, so it was not marked synced. Review them below, then mark it again."
            if unseen
            else f"#{header.display_id}'s details changed after the queue was loaded, so it "
            "was not marked synced: the queue below shows them as they are now. Review them, "
            "then mark it again.",
            code="stale_review",
        )


@transaction.atomic
def header_mark_synced(
    *,
    header: Memory,
    actor,
    reason: str = "",
    at_ms: int | None = None,
    expected_version: str | None = None,
) -> HeaderSync:
    """Record that the header was brought in line with its details now.

    Refused, with nothing written, for a memory that heads no composite or is archived.
    Given `expected_version` (StaleHeader.version of the queue entry the person reviewed),
    refused with StaleReview if what the queue would show now is not what was reviewed
    (a detail changed, a memory joined, the header was synced meanwhile); an empty one
    (a form that sent none) is refused the same way.
    """
    header = Memory.objects.select_for_update().select_related("project").get(pk=header.pk)
    if header.status == Memory.Status.ARCHIVED:
        raise ValidationError(
            f"#{header.display_id} is archived: an archived header is not synced."
        )
    if not Composite.objects.filter(head=header).exists():
        raise ValidationError(f"#{header.display_id} heads no composite: it is not a header.")
    if expected_version is not None:
        if not expected_version:
            raise StaleReview(header, unseen=True)
        current = stale_header(header)
        if current is None or current.version != expected_version:
            raise StaleReview(header)
    now = at_ms if at_ms is not None else now_ms()
    sync = HeaderSync.objects.filter(header=header).first()
    before = sync.synced_at if sync else None
    with acting(actor=actor, reason=reason):
        if sync is None:
            sync = HeaderSync(header=header)
        sync.synced_at = max(now, before or 0)
        sync.synced_by = as_actor(actor).label
        sync.save()
        audit_record(
            action="header_synced",
            target=header,
            project=header.project,
            category=header.category,
            changes={"synced_at": [before, sync.synced_at]},
        )
    return sync


@transaction.atomic
def header_accept_draft(
    *, header: Memory, actor, expected_version: str, reason: str = ""
) -> Memory:
    """Write the header's draft (`drafts.header_drafts`) and mark it synced, in one change.

    Refused as `header_mark_synced` refuses: the queue entry reviewed must be the one shown
    now (`expected_version`), so the draft written is the draft the person saw.
    """
    header = Memory.objects.select_for_update().select_related("project").get(pk=header.pk)
    current = stale_header(header)
    if not expected_version:
        raise StaleReview(header, unseen=True)
    if current is None or current.version != expected_version:
        raise StaleReview(header)
    draft = header_drafts([header]).get(header.pk)
    if draft is None:
        raise ValidationError(
            f"#{header.display_id} was written by hand: it has no draft to use. Edit it, then "
            "mark it synced."
        )
    reason = reason or "The header drafted again from its details"
    with acting(actor=actor, reason=reason):
        if draft.differs:
            header = memory_update(memory=header, actor=actor, content=draft.text, reason=reason)
        header_mark_synced(header=header, actor=actor, reason=reason)
    return header
