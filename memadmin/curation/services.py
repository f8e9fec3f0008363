"""The writes curation offers, each through the service that owns it.

Archiving one of a pair goes through `memory_archive`, a theme or alternatives composite
through `composite_create` (and `memory_create` for a new header): each records its own
audit event, in one transaction with the rest.
"""

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from memadmin.projects.models import Project

GROUP_TYPES = (Composite.Type.THEME, Composite.Type.ALTERNATIVES)


@transaction.atomic
def duplicate_archive(
    *,
    memory: Memory,
    keep: Memory | None,
    actor,
    reason: str = "",
    expected_updated_at: int | None = None,
) -> Memory:
    """Archive `memory` as a near-duplicate of `keep`, the reason saying which one stays.

    With `expected_updated_at`, a memory changed since the page showed it is refused.
    """
    if keep is not None and keep.pk == memory.pk:
        raise ValidationError("A memory cannot be archived as a duplicate of itself.")
    current = Memory.objects.select_for_update().get(pk=memory.pk)
    if expected_updated_at is not None and current.updated_at != expected_updated_at:
        raise ValidationError(
            f"#{current.display_id} changed since the page was shown: look at it again "
            "before archiving it."
        )
    why = f"near-duplicate of #{keep.display_id}" if keep is not None else "near-duplicate"
    return memory_archive(memory=current, actor=actor, reason=f"{why}: {reason}" if reason else why)


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
) -> Composite:
    """Make a composite of `memories` headed by `head`, or by a new header memory.

    With `head` None a header memory is created from `header_text` in `header_category`;
    the memories then all become members. Refused (nothing written) for a type other than
    theme or alternatives, fewer than two memories, or a head not among them.
    """
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
