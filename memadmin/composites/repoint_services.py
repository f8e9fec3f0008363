"""Compression fate: when memories merge, the composites that cited them follow the result.

`composites_repoint` runs inside a merge, `composites_restore` inside its undo; both inside the
caller's transaction and `acting` block, each writing one audit event per composite touched.
A composite's state is recorded as `{"head": id, "members": [ids in order], "cursor": n}`.
"""

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db.models import Q

from memadmin.audit.services import audit_record
from memadmin.projects.store import store_backend

from .models import Composite, CompositeMember
from .positions import cursor_member_id, member_ids, member_rows, settle


def _state(composite: Composite, rows) -> dict:
    return {"head": composite.head_id, "members": member_ids(rows), "cursor": composite.cursor}


def composites_repoint(*, source_ids: Iterable[int], result_id: int) -> list[dict]:
    """Point every composite head or member that was a source at the result.

    Members that become duplicates collapse to their earliest position; a member that
    would equal its head is dropped; the cursor follows its member (to the one that took
    its place when it was dropped). Return `{"composite", "before", "after"}` per composite
    touched, in id order.
    """
    sources = set(source_ids)
    touched = (
        Composite.objects.select_for_update(of=("self",))
        .filter(
            pk__in=Composite.objects.filter(
                Q(head_id__in=sources) | Q(members__member_id__in=sources)
            ).values("pk")
        )
        .select_related("project")
        .order_by("pk")
    )
    return [_repoint_one(composite, sources, result_id) for composite in touched]


def _repoint_one(composite: Composite, sources: set[int], result_id: int) -> dict:
    rows = member_rows(composite)
    before = _state(composite, rows)
    new_head = result_id if composite.head_id in sources else composite.head_id
    cursor_on = cursor_member_id(composite, rows)
    if cursor_on in sources:
        cursor_on = result_id
    kept: list[CompositeMember] = []
    seen: set[int] = set()
    kept_before_cursor = 0
    for index, row in enumerate(rows):
        target = result_id if row.member_id in sources else row.member_id
        if target == new_head or target in seen:
            row.delete()
            continue
        seen.add(target)
        kept.append(row)
        kept_before_cursor += index < composite.cursor
    # Rows that would clash are gone; now the survivors can take the result's id safely.
    for row in kept:
        if row.member_id in sources:
            row.member_id = result_id
            row.save(update_fields=["member"])
    composite.head_id = new_head
    settle(composite, kept, cursor_on=cursor_on, fallback_index=kept_before_cursor)
    after = _state(composite, kept)
    audit_record(
        action="composite_repointed",
        target=composite,
        project=composite.project,
        changes={"before": before, "after": after, "merged_into": result_id},
    )
    store_backend().write_composite(composite=composite, action="composite_repointed")
    return {"composite": composite.pk, "before": before, "after": after}


def composites_restore(*, records: list[dict]) -> None:
    """Put composites back as `records` (from `composites_repoint`) found them.

    Each composite must still be as the repointing left it (head and members; the cursor may
    have moved since): otherwise the restore is refused with the composites that changed.
    """
    by_pk = (
        Composite.objects.select_for_update(of=("self",))
        .select_related("project")
        .in_bulk([record["composite"] for record in records])
    )
    changed = []
    for record in records:
        composite = by_pk.get(record["composite"])
        if composite is None:
            changed.append(f"composite {record['composite']} was deleted")
            continue
        now = _state(composite, member_rows(composite))
        after = record["after"]
        if (now["head"], now["members"]) != (after["head"], after["members"]):
            changed.append(f"composite {composite.pk} was edited")
    if changed:
        raise ValidationError(
            "The composites changed since the merge, so it cannot be undone automatically: "
            + "; ".join(changed)
            + "."
        )
    for record in records:
        _restore_one(by_pk[record["composite"]], record)


def _restore_one(composite: Composite, record: dict) -> None:
    before = record["before"]
    wanted = before["members"]
    rows = {row.member_id: row for row in member_rows(composite)}
    for member_id, row in list(rows.items()):
        if member_id not in wanted:
            row.delete()
            del rows[member_id]
    composite.head_id = before["head"]
    composite.save()
    ordered = [
        rows.get(member_id)
        or CompositeMember.objects.create(
            composite=composite, member_id=member_id, position=len(rows) + index
        )
        for index, member_id in enumerate(wanted)
    ]
    cursor_on = wanted[before["cursor"]] if 0 <= before["cursor"] < len(wanted) else None
    settle(composite, ordered, cursor_on=cursor_on)
    audit_record(
        action="composite_restored",
        target=composite,
        project=composite.project,
        changes={"before": record["after"], "after": before},
    )
    store_backend().write_composite(composite=composite, action="composite_restored")
