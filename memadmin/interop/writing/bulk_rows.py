"""Write many rows fast, for the sync's bulk paths.

A sync may write a hundred thousand memories and as many history versions. Django's
`bulk_create` spends most of that time compiling each value through the ORM, and its
`bulk_update` builds CASE expressions SQLite evaluates branch by branch (minutes for such a
batch). Here rows are plain dicts keyed by column attribute. On SQLite each statement is
one prepared INSERT or UPDATE run through `executemany`; on PostgreSQL, where a statement
per row costs a round trip, rows are streamed with COPY (updates through a scratch table
and one joined UPDATE). Seconds, on either engine. Values that need converting (JSON, datetimes) are prepared by their field, as
`save()` would prepare them; plain numbers and text go as they are.

Only the sync services call this, inside the transactions they open, and they write the
history versions and audit events of every row they change themselves.
"""

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache

from django.db import DEFAULT_DB_ALIAS, connection, connections, models, transaction
from django.utils import timezone

from memadmin.audit.actors import Actor
from memadmin.audit.context import current_change_id

BATCH_SIZE = 5000
# Above this many rows, PostgreSQL updates go through COPY and one joined UPDATE.
COPY_THRESHOLD = 200

# Fields whose Python value is already what both database drivers take.
_PLAIN_FIELDS = (
    models.AutoField,
    models.BigAutoField,
    models.BigIntegerField,
    models.BooleanField,
    models.CharField,
    models.ForeignKey,
    models.IntegerField,
    models.OneToOneField,
    models.PositiveIntegerField,
    models.PositiveSmallIntegerField,
    models.TextField,
)


def _converter(field: models.Field) -> Callable[[object], object] | None:
    """Return how a value of ``field`` is prepared for the database, or None when as is.

    A run of rows often repeats one value (the history date): it is prepared once.
    """
    if type(field) in _PLAIN_FIELDS:
        return None
    database = connections[DEFAULT_DB_ALIAS]
    last: list = [object(), None]
    # SQLite holds JSON as text: the empty list or object most rows hold needs no encoder.
    text_json = database.vendor == "sqlite" and isinstance(field, models.JSONField)

    def convert(value: object) -> object:
        if text_json and not value and type(value) in (list, dict):
            return "[]" if type(value) is list else "{}"
        if value is not last[0]:
            last[0], last[1] = value, field.get_db_prep_save(value, database)
        return last[1]

    return convert


def _prepared(fields: Sequence[models.Field], rows: Sequence[Mapping], extra: Sequence[str] = ()):
    """Return each row's values in ``fields`` order (then ``extra`` attributes), prepared."""
    attnames = [field.attname for field in fields] + list(extra)
    converters = [_converter(field) for field in fields] + [None] * len(extra)
    converted = [(index, convert) for index, convert in enumerate(converters) if convert]
    prepared = []
    for row in rows:
        values = [row[name] for name in attnames]
        for index, convert in converted:
            values[index] = convert(values[index])
        prepared.append(values)
    return prepared


def _run(sql: str, params: list, on_batch: Callable[[int], None] | None) -> None:
    with connection.cursor() as cursor:
        for start in range(0, len(params), BATCH_SIZE):
            batch = params[start : start + BATCH_SIZE]
            cursor.executemany(sql, batch)
            if on_batch is not None:
                on_batch(len(batch))


def _copy(table: str, columns: list[str], params: list, on_batch) -> None:
    """Load rows into a PostgreSQL table with COPY: one stream, not one statement per row."""
    quote = connection.ops.quote_name
    sql = f"COPY {quote(table)} ({', '.join(quote(c) for c in columns)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for start in range(0, len(params), BATCH_SIZE):
            batch = params[start : start + BATCH_SIZE]
            for values in batch:
                copy.write_row(values)
            if on_batch is not None:
                on_batch(len(batch))


def rows_insert(
    model: type[models.Model],
    rows: Sequence[Mapping],
    *,
    on_batch: Callable[[int], None] | None = None,
) -> None:
    """Insert ``rows`` (dicts holding every concrete field's attname) into the model's table.

    An auto primary key missing from the rows is left to the database.
    """
    if not rows:
        return
    fields = [
        field
        for field in model._meta.concrete_fields
        if not (field.primary_key and field.attname not in rows[0])
    ]
    params = _prepared(fields, rows)
    if connection.vendor == "postgresql":
        _copy(model._meta.db_table, [field.column for field in fields], params, on_batch)
        return
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({placeholders})"
    _run(sql, params, on_batch)


def rows_update(
    model: type[models.Model],
    rows: Sequence[Mapping],
    field_names: Sequence[str],
    *,
    on_batch: Callable[[int], None] | None = None,
) -> None:
    """Write the fields named in ``field_names`` of each row (a dict with its "id") by key."""
    if not rows:
        return
    fields = [model._meta.get_field(name) for name in field_names]
    quote = connection.ops.quote_name
    table, pk = model._meta.db_table, model._meta.pk
    params = _prepared(fields, rows, extra=[pk.attname])
    if connection.vendor == "postgresql" and len(rows) > COPY_THRESHOLD:
        _update_from_copy(table, [field.column for field in fields], pk.column, params, on_batch)
        return
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    sql = f"UPDATE {quote(table)} SET {assignments} WHERE {quote(pk.column)} = %s"
    _run(sql, params, on_batch)


def _update_from_copy(table: str, columns: list[str], pk: str, params: list, on_batch) -> None:
    """Update many PostgreSQL rows at once: COPY the new values into a scratch table, join."""
    quote = connection.ops.quote_name
    scratch = "memadmin_rows_update"
    listed = ", ".join(quote(column) for column in [*columns, pk])
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE {scratch} ON COMMIT DROP AS "
            f"SELECT {listed} FROM {quote(table)} WITH NO DATA"
        )
    _copy(scratch, [*columns, pk], params, on_batch)
    assignments = ", ".join(f"{quote(column)} = new.{quote(column)}" for column in columns)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {quote(table)} SET {assignments} FROM {scratch} AS new "
            f"WHERE {quote(table)}.{quote(pk)} = new.{quote(pk)}"
        )
        cursor.execute(f"DROP TABLE {scratch}")


def reserve_pks(model: type[models.Model], count: int) -> list[int]:
    """Return ``count`` new primary keys for the model's table, for rows inserted with them.

    PostgreSQL draws them from the table's sequence. SQLite takes the keys above every key
    the table has held and moves the table's AUTOINCREMENT counter past them, in one short
    transaction: no other writer is given them, although the rows come later.
    """
    if count <= 0:
        return []
    table = model._meta.db_table
    column = model._meta.pk.column
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [table, column, count],
            )
            return [row[0] for row in cursor.fetchall()]
    if connection.vendor != "sqlite":
        raise NotImplementedError(f"no key reservation for {connection.vendor}")
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SELECT max({quote(column)}) FROM {quote(table)}")
        highest = cursor.fetchone()[0] or 0
        cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
        row = cursor.fetchone()
        start = max(highest, row[0] if row else 0) + 1
        last = start + count - 1
        if row is None:
            cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, last])
        else:
            cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [last, table])
    return list(range(start, last + 1))


@cache
def history_model(model: type[models.Model]) -> type[models.Model]:
    """Return the model of a model's history versions (its `history` manager builds one per use)."""
    return model.history.model


def history_insert(
    model: type[models.Model],
    rows: Sequence[Mapping],
    *,
    actor: Actor,
    history_type: str,
    reason: str,
    reasons: Mapping[int, str] | None = None,
) -> None:
    """Write one history version per row (a dict of the model's columns), by ``actor``.

    The versions are the rows simple-history's own bulk path writes: every tracked field,
    the date, the type ("+" created, "~" changed), the reason (``reasons`` by primary key,
    else ``reason``) and memadmin's actor columns.
    """
    if not rows:
        return
    fixed = {
        "history_date": timezone.now(),
        "history_type": history_type,
        "history_user_id": actor.user_id,
        "history_actor": actor.label,
        "history_actor_kind": actor.kind,
        "history_change_id": current_change_id(),
    }
    reasons = reasons or {}
    versions = [
        {**row, **fixed, "history_change_reason": reasons.get(row["id"], reason)} for row in rows
    ]
    rows_insert(history_model(model), versions)


def history_copy(
    model: type[models.Model],
    pks: Sequence[int],
    *,
    actor: Actor,
    history_type: str,
    reason: str,
    corrections: Sequence[Mapping] = (),
) -> None:
    """Write one history version of each row ``pks`` names, from the row as the table holds it.

    The same versions as `history_insert`, made by one INSERT ... SELECT instead of from
    Python rows. ``corrections`` ({"id": pk, attname: value}) set, in a row's newest version,
    values the row itself does not hold yet (a reference written in a later transaction).
    """
    if not pks:
        return
    history = history_model(model)
    quote = connection.ops.quote_name
    source = {field.attname: field for field in model._meta.concrete_fields}
    fixed = {
        "history_date": timezone.now(),
        "history_type": history_type,
        "history_user_id": actor.user_id,
        "history_actor": actor.label,
        "history_actor_kind": actor.kind,
        "history_change_id": current_change_id(),
        "history_change_reason": reason,
    }
    columns, selected, params = [], [], []
    for field in history._meta.concrete_fields:
        if field.attname in source:
            columns.append(field.column)
            selected.append(quote(source[field.attname].column))
        elif field.attname in fixed:
            columns.append(field.column)
            selected.append("%s")
            params.append(field.get_db_prep_save(fixed[field.attname], connection))
    listed = [int(pk) for pk in pks]
    if connection.vendor == "postgresql":
        wanted, params = "= ANY(%s)", [*params, listed]
    else:
        wanted, params = "IN (SELECT value FROM json_each(%s))", [*params, json.dumps(listed)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {quote(history._meta.db_table)} "
            f"({', '.join(quote(column) for column in columns)}) "
            f"SELECT {', '.join(selected)} FROM {quote(model._meta.db_table)} "
            f"WHERE {quote(model._meta.pk.column)} {wanted}",
            params,
        )
    table, pk = quote(history._meta.db_table), quote(model._meta.pk.column)
    for correction in corrections:
        names = [name for name in correction if name != "id"]
        assignments = ", ".join(f"{quote(history._meta.get_field(n).column)} = %s" for n in names)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET {assignments} WHERE {quote(history._meta.pk.column)} = "
                f"(SELECT max({quote(history._meta.pk.column)}) FROM {table} WHERE {pk} = %s)",
                [*(correction[name] for name in names), correction["id"]],
            )
