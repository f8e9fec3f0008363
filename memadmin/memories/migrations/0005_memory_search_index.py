"""The full-text index of memory texts: FTS5 on SQLite, a tsvector and GIN index on PostgreSQL."""

from django.db import migrations

from memadmin.memories import search


def _statements(schema_editor, forward: bool) -> list[str]:
    if schema_editor.connection.vendor == "postgresql":
        return search.POSTGRESQL_FORWARD if forward else search.POSTGRESQL_BACKWARD
    if schema_editor.connection.vendor == "sqlite":
        return search.SQLITE_FORWARD if forward else search.SQLITE_BACKWARD
    raise NotImplementedError("memadmin runs on SQLite or PostgreSQL")


def add_index(apps, schema_editor):
    for statement in _statements(schema_editor, forward=True):
        schema_editor.execute(statement)


def drop_index(apps, schema_editor):
    for statement in _statements(schema_editor, forward=False):
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("memories", "0004_memory_sizes")]

    operations = [migrations.RunPython(add_index, drop_index)]
