"""The index and size triggers can be suspended by the one connection inserting in bulk.

SQLite: the full-text and size insert triggers run only WHEN memadmin_row_triggers(), and
the update ones only when the text changed. PostgreSQL: the size trigger runs only while
the session's memadmin.row_triggers setting is not 'off'. A connection inserting many
memories turns them off on itself and indexes the rows in bulk
(`memadmin.memories.bulk_index`); every other connection keeps them.
"""

from django.db import migrations

from memadmin.memories import bulk_index


def _run(schema_editor, forward: bool) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        statements = bulk_index.POSTGRESQL_FORWARD if forward else bulk_index.POSTGRESQL_BACKWARD
    elif vendor == "sqlite":
        bulk_index.register_sqlite_function(None, schema_editor.connection)
        statements = bulk_index.SQLITE_FORWARD if forward else bulk_index.SQLITE_BACKWARD
    else:
        raise NotImplementedError("memadmin runs on SQLite or PostgreSQL")
    for statement in statements:
        schema_editor.execute(statement)


def suspendable(apps, schema_editor):
    _run(schema_editor, forward=True)


def always(apps, schema_editor):
    _run(schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("memories", "0008_project_moves_to_projects")]

    operations = [migrations.RunPython(suspendable, always)]
