"""Make `made_at` and `joined_at` required, now that 0007 filled them (see 0006 on SQLite)."""

from importlib import import_module

from django.db import migrations, models

import memadmin.core.clock

STAMPS = import_module("memadmin.composites.migrations.0006_membership_stamps")
MADE_AT = "When it was made, in milliseconds since the epoch."
JOINED_AT = (
    "When the memory joined, in milliseconds since the epoch: the composite's "
    "`made_at` for the members it was made with."
)


class Migration(migrations.Migration):
    dependencies = [
        ("composites", "0007_membership_stamps_backfill"),
    ]

    operations = STAMPS.without_sqlite_triggers(
        *(
            migrations.AlterField(
                model_name=model,
                name="made_at",
                field=models.BigIntegerField(default=memadmin.core.clock.now_ms, help_text=MADE_AT),
            )
            for model in ("composite", "historicalcomposite")
        ),
        *(
            migrations.AlterField(
                model_name=model,
                name="joined_at",
                field=models.BigIntegerField(
                    default=memadmin.core.clock.now_ms, help_text=JOINED_AT
                ),
            )
            for model in ("compositemember", "historicalcompositemember")
        ),
    )
