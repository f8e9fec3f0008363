"""Add the membership stamps, empty at first: 0007 fills them, 0008 makes two required.

SQLite rebuilds a table to drop a column or make one required, and a rebuild drops the
table's triggers and trips over triggers naming it. So on SQLite the member-is-never-head
triggers of 0003 are dropped before the columns change and made again after, here (for
going back) and in 0008; PostgreSQL changes the columns in place.
"""

from importlib import import_module

from django.db import migrations, models

TRIGGERS = import_module("memadmin.composites.migrations.0003_member_is_never_head")
MEMBERS_CHANGED_AT = (
    "When a member last joined, left or moved, in milliseconds since the epoch; empty "
    "while the members are those it was made with, in their order. On the history row "
    "that records the composite's deletion, the time it was deleted."
)


def on_sqlite(statements: list[str]):
    """Return a RunPython function running `statements` on SQLite only."""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            for statement in statements:
                schema_editor.execute(statement)

    return run


def without_sqlite_triggers(*operations) -> list:
    """Return `operations` between dropping the SQLite triggers and making them again."""
    drop, create = on_sqlite(TRIGGERS.SQLITE_DROP), on_sqlite(TRIGGERS.SQLITE_CREATE)
    return [migrations.RunPython(drop, create), *operations, migrations.RunPython(create, drop)]


class Migration(migrations.Migration):
    dependencies = [
        ("composites", "0005_reference_set_is_frozen"),
    ]

    operations = without_sqlite_triggers(
        *(
            migrations.AddField(
                model_name=model, name="made_at", field=models.BigIntegerField(null=True)
            )
            for model in ("composite", "historicalcomposite")
        ),
        *(
            migrations.AddField(
                model_name=model,
                name="members_changed_at",
                field=models.BigIntegerField(blank=True, null=True, help_text=MEMBERS_CHANGED_AT),
            )
            for model in ("composite", "historicalcomposite")
        ),
        *(
            migrations.AddField(
                model_name=model, name="joined_at", field=models.BigIntegerField(null=True)
            )
            for model in ("compositemember", "historicalcompositemember")
        ),
    )
