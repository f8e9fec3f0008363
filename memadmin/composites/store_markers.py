"""The store's markers: what a process checks, in one query, before reusing what it worked out.

The store version (`audit.StoreVersion`, moved on by every `audit_record`), the newest audit
event, and the newest history version of memories, composites and members. Every recorded
write moves the first two; every write that keeps a version (a sync's bulk rows included)
moves one of the others. Each is the largest key of its table: an index lookup, whatever
the store's size.
"""

from django.db import connection

from memadmin.audit.models import AuditEvent, StoreVersion
from memadmin.memories.models import Memory

from .models import Composite, CompositeMember

Markers = tuple[int, int, int, int, int]


def store_markers() -> Markers:
    """Return the store version and the newest event and history ids, in one query."""
    quote = connection.ops.quote_name

    def newest(model, column: str) -> str:
        return f"(SELECT MAX({quote(column)}) FROM {quote(model._meta.db_table)})"

    sql = "SELECT " + ", ".join(
        [
            f"(SELECT {quote('version')} FROM {quote(StoreVersion._meta.db_table)} WHERE id = 1)",
            newest(AuditEvent, "id"),
            newest(Memory.history.model, "history_id"),
            newest(Composite.history.model, "history_id"),
            newest(CompositeMember.history.model, "history_id"),
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return tuple(value or 0 for value in cursor.fetchone())
