"""The order rules every composite service keeps: positions 0..n-1, a cursor on a member.

Only the services in this app call these, inside their transaction and `acting` block.
"""

from collections.abc import Iterable, Sequence

from .models import Composite, CompositeMember


def locked(composite: Composite) -> Composite:
    """Return the composite re-read under a row lock, with its head and project."""
    return (
        Composite.objects.select_for_update(of=("self",))
        .select_related("head", "project")
        .get(pk=composite.pk)
    )


def member_rows(composite: Composite) -> list[CompositeMember]:
    """Return the composite's member rows in position order."""
    return list(composite.members.select_related("member").order_by("position", "id"))


def member_ids(rows: Iterable[CompositeMember]) -> list[int]:
    """Return the member memory ids of the rows, in order."""
    return [row.member_id for row in rows]


def cursor_member_id(composite: Composite, rows: Sequence[CompositeMember]) -> int | None:
    """Return the id of the memory the cursor points at, or None when it points past the end."""
    if 0 <= composite.cursor < len(rows):
        return rows[composite.cursor].member_id
    return None


def settle(
    composite: Composite,
    rows: list[CompositeMember],
    *,
    cursor_on: int | None,
    fallback_index: int = 0,
) -> None:
    """Renumber rows 0..n-1 in list order and point the cursor at the memory `cursor_on`.

    When that memory is no longer a member the cursor takes `fallback_index`, wrapped into
    the sequence (0 when it is empty). Only rows whose position changed are written; the
    composite is always saved, so its `updated_at` marks the change.
    """
    for index, row in enumerate(rows):
        if row.position != index:
            row.position = index
            row.save(update_fields=["position"])
    ids = member_ids(rows)
    if cursor_on in ids:
        composite.cursor = ids.index(cursor_on)
    else:
        composite.cursor = fallback_index % len(ids) if ids else 0
    composite.save()
