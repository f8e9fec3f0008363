"""Fill the membership stamps of the composites already stored, from what was recorded.

- `made_at`: the composite's `created_at`, on the milliseconds clock (history rows too).
- `members_changed_at`: the latest member added, removed or moved in the audit trail, when
  later than the making; otherwise empty. A history row recording a deletion gets the time
  of the deletion, its `history_date`.
- `joined_at`: the latest audit event that added that memory to that composite, when later
  than the making; otherwise the composite's `made_at`. A history row takes the value of its
  live row, or, the row being gone, the time of the row's first version.

Reversing leaves the stamps in place (0006 reversed drops them).
"""

from datetime import UTC, datetime, timedelta

from django.db import migrations

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ADDED = "composite_member_added"
MEMBERSHIP_ACTIONS = (ADDED, "composite_member_removed", "composite_member_moved")
BATCH = 2000


def ms(moment: datetime) -> int:
    """Return an aware datetime as whole milliseconds since the epoch."""
    return (moment - EPOCH) // timedelta(milliseconds=1)


def membership_events(AuditEvent) -> tuple[dict, dict]:
    """Return the latest membership change per composite, and join per (composite, memory)."""
    changed: dict[int, int] = {}
    joined: dict[tuple[int, int], int] = {}
    events = AuditEvent.objects.filter(object_type="composite", action__in=MEMBERSHIP_ACTIONS)
    for object_id, action, created, changes in events.values_list(
        "object_id", "action", "created_at", "changes"
    ).iterator(chunk_size=BATCH):
        if not object_id.isdigit():
            continue
        composite, at = int(object_id), ms(created)
        changed[composite] = max(changed.get(composite, at), at)
        if action == ADDED and isinstance(changes, dict):
            for member in changes.get("added") or []:
                joined[composite, member] = max(joined.get((composite, member), at), at)
    return changed, joined


def update(schema_editor, model, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """Set `columns` of each row, given as (values..., primary key), in batches."""
    quote = schema_editor.quote_name
    assignments = ", ".join(f"{quote(column)} = %s" for column in columns)
    sql = (
        f"UPDATE {quote(model._meta.db_table)} SET {assignments} "
        f"WHERE {quote(model._meta.pk.column)} = %s"
    )
    with schema_editor.connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH):
            cursor.executemany(sql, rows[start : start + BATCH])


def backfill(apps, schema_editor) -> None:
    Composite = apps.get_model("composites", "Composite")
    HistoricalComposite = apps.get_model("composites", "HistoricalComposite")
    CompositeMember = apps.get_model("composites", "CompositeMember")
    HistoricalCompositeMember = apps.get_model("composites", "HistoricalCompositeMember")
    changed, joined = membership_events(apps.get_model("audit", "AuditEvent"))

    made = {
        pk: ms(created)
        for pk, created in Composite.objects.values_list("pk", "created_at").iterator(BATCH)
    }
    update(
        schema_editor,
        Composite,
        ("made_at", "members_changed_at"),
        [(at, changed[pk] if changed.get(pk, at) > at else None, pk) for pk, at in made.items()],
    )
    versions = HistoricalComposite.objects.values_list(
        "history_id", "created_at", "history_type", "history_date"
    )
    update(
        schema_editor,
        HistoricalComposite,
        ("made_at", "members_changed_at"),
        [
            (ms(created), ms(date) if kind == "-" else None, history_id)
            for history_id, created, kind, date in versions.iterator(BATCH)
        ],
    )

    live: dict[int, int] = {}
    for pk, composite, member in CompositeMember.objects.values_list(
        "pk", "composite_id", "member_id"
    ).iterator(BATCH):
        live[pk] = max(made[composite], joined.get((composite, member), 0))
    update(schema_editor, CompositeMember, ("joined_at",), [(at, pk) for pk, at in live.items()])
    first: dict[int, int] = {}
    rows = []
    member_versions = HistoricalCompositeMember.objects.order_by(
        "history_date", "history_id"
    ).values_list("history_id", "id", "history_date")
    for history_id, pk, date in member_versions.iterator(BATCH):
        first.setdefault(pk, ms(date))
        rows.append((live.get(pk, first[pk]), history_id))
    update(schema_editor, HistoricalCompositeMember, ("joined_at",), rows)


class Migration(migrations.Migration):
    dependencies = [
        ("composites", "0006_membership_stamps"),
        ("audit", "0002_initial"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True)]
