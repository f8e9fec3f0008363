"""Print the schema of this process's database as JSON: tables, columns, indexes, constraints.

Run as ``python -m tests.interop.schema_dump`` in a process whose settings name the database
(`test_migrations.py` compares two). Constraint names SQLite makes up by position are left
out; the names Django gives are kept, as is the SQL of every index, constraint and trigger.
"""

import json
import re

import django

SQLITE_MADE_UP = re.compile(r"^(__unnamed_constraint_\d+__|fk_\d+|sqlite_autoindex_.+)$")


def schema() -> dict:
    """Return the database's schema, and the interop migrations recorded as applied."""
    from django.db import connection

    introspection = connection.introspection
    tables = {}
    with connection.cursor() as cursor:
        for table in introspection.get_table_list(cursor):
            columns = [
                [c.name, str(c.type_code), c.internal_size, c.precision, c.scale, c.null_ok]
                for c in introspection.get_table_description(cursor, table.name)
            ]
            defaults = [
                [c.name, str(c.default), c.collation]
                for c in introspection.get_table_description(cursor, table.name)
            ]
            constraints = []
            for name, constraint in introspection.get_constraints(cursor, table.name).items():
                if connection.vendor == "sqlite" and SQLITE_MADE_UP.match(name):
                    name = ""
                constraints.append(json.dumps([name, constraint], sort_keys=True, default=str))
            tables[table.name] = {
                "type": table.type,
                "columns": sorted(columns),
                "defaults": sorted(defaults),
                "constraints": sorted(constraints),
            }
        cursor.execute(SQL[connection.vendor])
        definitions = sorted([list(row) for row in cursor.fetchall()])
        cursor.execute("SELECT name FROM django_migrations WHERE app = 'interop' ORDER BY name")
        applied = [row[0] for row in cursor.fetchall()]
    return {"tables": tables, "definitions": definitions, "applied": applied}


# Every index, trigger and table constraint with its SQL (a partial index's condition too).
SQL = {
    "sqlite": (
        "SELECT type, name, tbl_name, sql FROM sqlite_master"
        " WHERE type IN ('index', 'trigger') AND sql IS NOT NULL"
    ),
    "postgresql": (
        "SELECT 'index', indexname, tablename, indexdef FROM pg_indexes"
        " WHERE schemaname = current_schema()"
        " UNION ALL SELECT 'trigger', tgname, tgrelid::regclass::text, pg_get_triggerdef(oid)"
        " FROM pg_trigger WHERE NOT tgisinternal"
        " UNION ALL SELECT 'constraint', conname, conrelid::regclass::text,"
        " pg_get_constraintdef(oid) FROM pg_constraint"
        " WHERE connamespace = current_schema()::regnamespace"
    ),
}


if __name__ == "__main__":
    django.setup()
    print(json.dumps(schema(), sort_keys=True))
