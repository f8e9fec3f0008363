"""Each memory's size row keeps its content's 64-bit digest, written by the size triggers.

`MemorySize.content_digest` is `memadmin.core.hashing.content_digest64` of the content. The
size triggers are made again to write it on every insert and content update, with 0009's
conditions (suspendable insert, update only when the text changed), and every existing row
gets it. Backward, the triggers write the size alone again (then the column goes).
"""

from django.db import migrations, models

from memadmin.memories import bulk_index, sizes


def _run(schema_editor, forward: bool) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = (
            sizes.POSTGRESQL_DIGEST_FORWARD if forward else sizes.POSTGRESQL_DIGEST_BACKWARD
        )
    elif vendor == "sqlite":
        sizes.register_sqlite_function(None, schema_editor.connection)
        bulk_index.register_sqlite_function(None, schema_editor.connection)
        statements = sizes.SQLITE_DIGEST_FORWARD if forward else sizes.SQLITE_DIGEST_BACKWARD
    else:
        raise NotImplementedError("memadmin runs on SQLite or PostgreSQL")
    for statement in statements:
        schema_editor.execute(statement)


def with_digest(apps, schema_editor):
    _run(schema_editor, forward=True)


def without_digest(apps, schema_editor):
    _run(schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("memories", "0009_index_triggers_suspendable")]

    operations = [
        migrations.AddField(
            model_name="memorysize",
            name="content_digest",
            field=models.BigIntegerField(null=True),
        ),
        migrations.RunPython(with_digest, without_digest),
    ]
