"""Key token counts by a 64-bit key of counter version and text, the table's primary key.

The table is a cache: it is made anew and empty (every count is made again on the next
preview), as the old rows have no such key and were made by an unversioned counter.
"""

from django.db import migrations, models

import memadmin.ledger.models


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [
        migrations.DeleteModel(name="TokenCount"),
        migrations.CreateModel(
            name="TokenCount",
            fields=[
                (
                    "key",
                    memadmin.ledger.models.TextKeyField(primary_key=True, serialize=False),
                ),
                ("counter", models.CharField(max_length=40)),
                ("count", models.PositiveIntegerField()),
            ],
        ),
    ]
