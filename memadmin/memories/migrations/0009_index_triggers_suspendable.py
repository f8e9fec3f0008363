"""SQLite: the full-text and size insert triggers run only WHEN memadmin_row_triggers().

Their update triggers run only when the text changed.

A connection inserting many memories turns them off on itself and indexes the rows in bulk
(`memadmin.memories.bulk_index`); every other connection keeps them. PostgreSQL: nothing.
"""

from django.db import migrations

from memadmin.memories import bulk_index


def _run(schema_editor, statements: list[str]) -> None:
    if schema_editor.connection.vendor != "sqlite":
        return
    bulk_index.register_sqlite_function(None, schema_editor.connection)
    for statement in statements:
        schema_editor.execute(statement)


def suspendable(apps, schema_editor):
    _run(schema_editor, bulk_index.SQLITE_FORWARD)


def always(apps, schema_editor):
    _run(schema_editor, bulk_index.SQLITE_BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("memories", "0008_project_moves_to_projects")]

    operations = [migrations.RunPython(suspendable, always)]
