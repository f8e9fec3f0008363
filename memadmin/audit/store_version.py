"""The store version: a number moved on by every recorded write (see `models.StoreVersion`)."""

from django.db import connection
from django.db.models import F

from .models import StoreVersion

_ROW = 1


def store_version_bump() -> None:
    """Move the store version on, in the current transaction (make its row if missing)."""
    if not StoreVersion.objects.filter(pk=_ROW).update(version=F("version") + 1):
        StoreVersion.objects.bulk_create([StoreVersion(pk=_ROW, version=1)], ignore_conflicts=True)


def store_version() -> int:
    """Return the store version now, in one query (0 before the first recorded write)."""
    table = connection.ops.quote_name(StoreVersion._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT version FROM {table} WHERE id = %s", [_ROW])
        found = cursor.fetchone()
    return found[0] if found else 0
