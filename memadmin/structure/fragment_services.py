"""Fragment a long memory (Proposal 3): details, a header over them, and the original archived.

`memory_fragment` does it all in one transaction: the details are created from the split,
the header from the summary written for it (high importance, so the default injection
carries it), a sequence or theme composite joins them, every composite that cited the
original now cites the header, and the original is archived with `superseded_by` pointing
at the header; its full text stays reachable from the header's page. Any refusal writes
nothing. Given the version of the text the split was previewed on (`expected_updated_at`), a
memory changed since is refused (PreviewOutdated): only text the person saw is ever split.
"""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite
from memadmin.composites.repoint_services import composites_repoint
from memadmin.composites.services import composite_create
from memadmin.core.clock import now_ms
from memadmin.core.fragments import SplitError, apply_boundaries
from memadmin.headermap.models import HeaderSync
from memadmin.memories.models import Memory
from memadmin.memories.services import DuplicateMemory, memory_create

FRAGMENT_TYPES = ("sequence", "theme")
HEADER_IMPORTANCE = 90
FRAGMENTED = "fragmented"


class PreviewOutdated(ValidationError):
    """The memory changed since its split was previewed (or the apply named no version)."""

    def __init__(self, memory: Memory, *, unseen: bool = False):
        why = (
            "This split did not say which version of the text it was previewed on"
            if unseen
            else f"#{memory.display_id} was changed since this split was previewed"
        )
        super().__init__(
            f"{why}: nothing was split. The preview now shows the text as it is; check the "
            "fragments and apply again.",
            code="preview_outdated",
        )


@dataclass(frozen=True, slots=True)
class Fragmentation:
    """What fragmenting made: the header, its details in order, their composite."""

    original: Memory
    header: Memory
    details: list[Memory]
    composite: Composite


def _refuse(memory: Memory, composite_type: str, summary: str, importance: int) -> None:
    errors = {}
    if memory.status == Memory.Status.ARCHIVED:
        errors["memory"] = f"#{memory.display_id} is archived: restore it before fragmenting it."
    if composite_type not in FRAGMENT_TYPES:
        errors["type"] = "Fragments are joined as a sequence (an SOP) or a theme (a dossier)."
    if not summary.strip():
        errors["summary"] = "Write the header's summary: it is what the agent sees by default."
    if not (isinstance(importance, int) and 1 <= importance <= 100):
        errors["header_importance"] = "Importance must be a whole number between 1 and 100."
    if errors:
        raise ValidationError(errors)


def _create(number: int | None, **fields) -> Memory:
    """Create one memory, naming the fragment (or the header) an identical text clashes with."""
    try:
        return memory_create(**fields)
    except DuplicateMemory as duplicate:
        what = "The header's summary" if number is None else f"Fragment {number}"
        raise ValidationError(
            f"{what} is the same text as #{duplicate.existing.display_id} in "
            f"{duplicate.existing.category}; change it or move its boundary."
        ) from duplicate


@transaction.atomic
def memory_fragment(
    *,
    memory: Memory,
    boundaries: list[int],
    composite_type: str,
    summary: str,
    actor,
    title: str = "",
    header_category: str | None = None,
    header_importance: int = HEADER_IMPORTANCE,
    reason: str = "",
    at_ms: int | None = None,
    expected_updated_at: int | None = None,
) -> Fragmentation:
    """Split the memory at `boundaries` (character offsets) into details under a new header.

    Refused with ValidationError, nothing written: an archived memory, a split that leaves
    an empty fragment or fewer than two, a type other than sequence or theme, an empty
    summary, or a fragment or summary identical to an existing memory of its category; and,
    given `expected_updated_at`, a memory whose text changed since that version was previewed.
    """
    original = Memory.objects.select_for_update().select_related("project").get(pk=memory.pk)
    if expected_updated_at is not None and original.updated_at != expected_updated_at:
        raise PreviewOutdated(original)
    _refuse(original, composite_type, summary, header_importance)
    try:
        fragments = apply_boundaries(original.content, boundaries, summary=summary)
    except SplitError as error:
        raise ValidationError({"boundaries": str(error)}) from error
    now = max(at_ms if at_ms is not None else now_ms(), original.updated_at + 1)
    project = original.project
    common = {"project": project, "actor": actor, "reason": reason, "at_ms": now}
    with acting(actor=actor, reason=reason):
        details = [
            _create(
                number,
                category=original.category,
                content=fragment.text,
                importance=original.importance,
                scope=original.scope,
                **common,
            )
            for number, fragment in enumerate(fragments, start=1)
        ]
        header = _create(
            None,
            category=header_category or original.category,
            content=summary.strip(),
            importance=header_importance,
            scope=original.scope,
            status=original.status,
            **common,
        )
        repointed = composites_repoint(source_ids=[original.pk], result_id=header.pk)
        composite = composite_create(
            head=header,
            type=composite_type,
            members=details,
            title=title or summary.strip().splitlines()[0][:200],
            actor=actor,
            reason=reason,
            at_ms=now,
        )
        status_before = original.status
        original.status = Memory.Status.ARCHIVED
        original.superseded_by = header
        original.metadata = {
            **(original.metadata or {}),
            "archive_reason": f"fragmented into {header.pk}",
            "fragmented_into": header.pk,
        }
        original.updated_at = now
        original.save()
        HeaderSync.objects.create(header=header, synced_at=now, synced_by=as_actor(actor).label)
        audit_record(
            action=FRAGMENTED,
            target=original,
            project=project,
            category=original.category,
            changes={
                "status": [status_before, "archived"],
                "superseded_by": [None, header.pk],
                "header": header.pk,
                "details": [detail.pk for detail in details],
                "composite": composite.pk,
                "type": composite_type,
                "boundaries": list(boundaries),
                "composites_repointed": repointed,
            },
        )
    return Fragmentation(original=original, header=header, details=details, composite=composite)
