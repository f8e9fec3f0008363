"""Make the database refuse any change to a frozen reference set.

The one update allowed is Django clearing `composite_id` when the composite is deleted: the
snapshot outlives the composite it was taken from.
"""

from django.db import migrations

MESSAGE = "a reference set is frozen: it cannot be changed"
FROZEN_COLUMNS = (
    "ref",
    "project_id",
    "composite_type",
    "title",
    "items",
    "cursor",
    "frozen_at",
    "frozen_by",
    "note",
)
CHANGED = " OR ".join(f"NEW.{column} IS NOT OLD.{column}" for column in FROZEN_COLUMNS)
CHANGED_PG = " OR ".join(f"NEW.{column} IS DISTINCT FROM OLD.{column}" for column in FROZEN_COLUMNS)
COMPOSITE_CHANGED = "NEW.composite_id IS NOT NULL AND NEW.composite_id {op} OLD.composite_id"

SQLITE_CREATE = [
    f"""
    CREATE TRIGGER reference_set_frozen
    BEFORE UPDATE ON composites_referenceset FOR EACH ROW
    WHEN {CHANGED} OR ({COMPOSITE_CHANGED.format(op="IS NOT")})
    BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END
    """,
]
SQLITE_DROP = ["DROP TRIGGER IF EXISTS reference_set_frozen"]

POSTGRES_CREATE = [
    f"""
    CREATE FUNCTION reference_set_frozen() RETURNS trigger AS $$
    BEGIN
      IF {CHANGED_PG} OR ({COMPOSITE_CHANGED.format(op="IS DISTINCT FROM")}) THEN
        RAISE EXCEPTION '{MESSAGE}' USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END; $$ LANGUAGE plpgsql
    """,
    """
    CREATE TRIGGER reference_set_frozen
    BEFORE UPDATE ON composites_referenceset
    FOR EACH ROW EXECUTE FUNCTION reference_set_frozen()
    """,
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS reference_set_frozen ON composites_referenceset",
    "DROP FUNCTION IF EXISTS reference_set_frozen()",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statements = statements_by_vendor.get(schema_editor.connection.vendor)
        if statements is None:
            raise RuntimeError(f"no reference-set triggers for {schema_editor.connection.vendor}")
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("composites", "0004_reference_set")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_CREATE, "postgresql": POSTGRES_CREATE}),
            _run({"sqlite": SQLITE_DROP, "postgresql": POSTGRES_DROP}),
        ),
    ]
