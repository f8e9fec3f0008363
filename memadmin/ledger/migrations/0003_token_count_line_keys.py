"""Memory lines' token counts are keyed by (id, content digest) now: the stored ones go.

The table is a cache (any row can be dropped and is counted again on the next preview).
Since `count_keys.memory_keys`, a memory's plain line is stored under a key made of its
id and content digest, no longer of its text: the rows stored by text for those lines
could never be read again, and would stay forever (nothing prunes the table). They are
not told apart from the few rows still keyed by text (wrappers, tags, header lines), so
every row goes, and the first preview counts its store again, as after migration 0002.
"""

from django.db import migrations


def empty_the_cache(apps, schema_editor):
    apps.get_model("ledger", "TokenCount").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("ledger", "0002_token_count_text_key")]

    operations = [migrations.RunPython(empty_the_cache, migrations.RunPython.noop)]
