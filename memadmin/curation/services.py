"""The writes curation offers, each through the service that owns it.

Archiving one of a pair goes through `memory_archive`, a theme or alternatives composite
through `composite_create` (and `memory_create` for a new header): each records its own
audit event, in one transaction with the rest.
"""

from collections.abc import Mapping, Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.revision_fields import revision_for
from memadmin.memories.selectors import memories_version
from memadmin.memories.services import memory_create
from memadmin.projects.models import Project

GROUP_TYPES = (Composite.Type.THEME, Composite.Type.ALTERNATIVES)


class StaleArchive(ValidationError):
    """The memory changed since the page asking to archive it was shown; `current` is it now.

    `unseen` is for a request that did not say which version it acts on: it could archive
    any later edit unseen, so it is refused as a stale one is (the rule of `StaleEdit`).
    """

    def __init__(self, current: Memory, *, unseen: bool = False):
        self.current = current
        super().__init__(
            f"This archive did not say which version of #{current.display_id} it was shown, "
            "so it could archive an edit nobody saw. The memory as it is now is shown; "
            "nothing was archived."
            if unseen
            else f"#{current.display_id} changed since the page was shown: it is shown as it "
            "is now; nothing was archived.",
            code="stale",
        )


@transaction.atomic
def duplicate_archive(
    *,
    memory: Memory,
    keep: Memory | None,
    actor,
    expected_updated_at: int | None,
    reason: str = "",
    expected_revisions: Mapping[int, int] | None = None,
) -> Memory:
    """Archive `memory` as a near-duplicate of `keep`, the reason saying which one stays.

    `expected_updated_at` is the version the page showed: a memory changed since, or a
    request naming no version, is refused with StaleArchive and nothing is written; so is
    (StoreRowChanged) a store row the agent revised since `expected_revisions` were read.
    """
    if keep is not None and keep.pk == memory.pk:
        raise ValidationError("A memory cannot be archived as a duplicate of itself.")
    current = Memory.objects.select_for_update().get(pk=memory.pk)
    if expected_updated_at is None:
        raise StaleArchive(current, unseen=True)
    if current.updated_at != expected_updated_at:
        raise StaleArchive(current)
    why = f"near-duplicate of #{keep.display_id}" if keep is not None else "near-duplicate"
    return memory_archive(
        memory=current,
        actor=actor,
        reason=f"{why}: {reason}" if reason else why,
        expected_revision=revision_for(expected_revisions, current),
    )


class StaleGroup(ValidationError):
    """A memory of the group changed since the page proposing it was shown (or the request
    named no version); `memories` are the group's live memories as they are now."""

    def __init__(self, memories: Sequence[Memory], *, unseen: bool = False):
        self.memories = memories
        super().__init__(
            "This request did not say which versions of the memories it groups, so it could "
            "group texts nobody saw. They are listed as they are now; nothing was made."
            if unseen
            else "One of these memories was saved (or archived) since the page was shown. "
            "They are listed as they are now, your choices kept; nothing was made.",
            code="stale",
        )


@transaction.atomic
def group_composite_create(
    *,
    project: Project,
    memories: Sequence[Memory],
    type: str,
    head: Memory | None,
    actor,
    header_text: str = "",
    header_category: str = "",
    title: str = "",
    reason: str = "",
    expected_version: str | None = None,
) -> Composite:
    """Make a composite of `memories` headed by `head`, or by a new header memory.

    With `head` None a header memory is created from `header_text` in `header_category`;
    the memories then all become members. Refused (nothing written) for a type other than
    theme or alternatives, fewer than two memories, or a head not among them. If
    `expected_version` (`memories_version` of the group shown) is given and a memory of it
    was saved or archived since, StaleGroup is raised.
    """
    if expected_version is not None:
        locked = list(Memory.objects.select_for_update().filter(pk__in=[m.pk for m in memories]))
        live = [m for m in locked if m.status != Memory.Status.ARCHIVED]
        if memories_version(live) != expected_version:
            raise StaleGroup(live)
    if type not in GROUP_TYPES:
        raise ValidationError(f"A group becomes a theme or alternatives composite, not {type!r}.")
    if len({m.pk for m in memories}) < 2:
        raise ValidationError("A group needs at least two memories.")
    if any(m.project_id != project.pk for m in memories):
        raise ValidationError("Every memory of the group must belong to the project.")
    if head is None:
        if not header_text.strip():
            raise ValidationError("Write the new header memory's text, or pick a head.")
        head = memory_create(
            project=project,
            category=header_category,
            content=header_text.strip(),
            actor=actor,
            reason=reason or "header of a suggested theme",
        )
    elif head.pk not in {m.pk for m in memories}:
        raise ValidationError(f"#{head.display_id} is not one of the group's memories.")
    members = [m for m in memories if m.pk != head.pk]
    return composite_create(
        head=head, type=type, members=members, title=title, actor=actor, reason=reason
    )
