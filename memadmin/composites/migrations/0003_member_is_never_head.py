"""Make the database itself refuse a composite member equal to its composite's head.

A check constraint cannot look at another table, so each engine gets triggers: on inserting or
updating a member, and on changing a composite's head.
"""

from django.db import migrations

MESSAGE = "a composite member cannot be the composite's own head"

SQLITE_CREATE = [
    f"""
    CREATE TRIGGER composite_member_not_head_insert
    BEFORE INSERT ON composites_compositemember FOR EACH ROW
    WHEN NEW.member_id = (SELECT head_id FROM composites_composite WHERE id = NEW.composite_id)
    BEGIN SELECT RAISE(ABORT, '{MESSAGE.replace("'", "''")}'); END
    """,
    f"""
    CREATE TRIGGER composite_member_not_head_update
    BEFORE UPDATE OF member_id, composite_id ON composites_compositemember FOR EACH ROW
    WHEN NEW.member_id = (SELECT head_id FROM composites_composite WHERE id = NEW.composite_id)
    BEGIN SELECT RAISE(ABORT, '{MESSAGE.replace("'", "''")}'); END
    """,
    f"""
    CREATE TRIGGER composite_head_not_member_update
    BEFORE UPDATE OF head_id ON composites_composite FOR EACH ROW
    WHEN EXISTS (SELECT 1 FROM composites_compositemember
                 WHERE composite_id = NEW.id AND member_id = NEW.head_id)
    BEGIN SELECT RAISE(ABORT, '{MESSAGE.replace("'", "''")}'); END
    """,
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS composite_member_not_head_insert",
    "DROP TRIGGER IF EXISTS composite_member_not_head_update",
    "DROP TRIGGER IF EXISTS composite_head_not_member_update",
]

POSTGRES_CREATE = [
    f"""
    CREATE FUNCTION composite_member_not_head() RETURNS trigger AS $$
    BEGIN
      IF NEW.member_id = (SELECT head_id FROM composites_composite WHERE id = NEW.composite_id) THEN
        RAISE EXCEPTION '{MESSAGE.replace("'", "''")}' USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END; $$ LANGUAGE plpgsql
    """,
    """
    CREATE TRIGGER composite_member_not_head
    BEFORE INSERT OR UPDATE OF member_id, composite_id ON composites_compositemember
    FOR EACH ROW EXECUTE FUNCTION composite_member_not_head()
    """,
    f"""
    CREATE FUNCTION composite_head_not_member() RETURNS trigger AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM composites_compositemember
                 WHERE composite_id = NEW.id AND member_id = NEW.head_id) THEN
        RAISE EXCEPTION '{MESSAGE.replace("'", "''")}' USING ERRCODE = 'check_violation';
      END IF;
      RETURN NEW;
    END; $$ LANGUAGE plpgsql
    """,
    """
    CREATE TRIGGER composite_head_not_member
    BEFORE UPDATE OF head_id ON composites_composite
    FOR EACH ROW EXECUTE FUNCTION composite_head_not_member()
    """,
]
POSTGRES_DROP = [
    "DROP TRIGGER IF EXISTS composite_member_not_head ON composites_compositemember",
    "DROP TRIGGER IF EXISTS composite_head_not_member ON composites_composite",
    "DROP FUNCTION IF EXISTS composite_member_not_head()",
    "DROP FUNCTION IF EXISTS composite_head_not_member()",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statements = statements_by_vendor.get(schema_editor.connection.vendor)
        if statements is None:
            raise RuntimeError(
                f"no member-is-not-head triggers for {schema_editor.connection.vendor}"
            )
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("composites", "0002_initial")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_CREATE, "postgresql": POSTGRES_CREATE}),
            _run({"sqlite": SQLITE_DROP, "postgresql": POSTGRES_DROP}),
        ),
    ]
