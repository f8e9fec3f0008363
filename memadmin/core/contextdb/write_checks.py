"""What a write to a live store checks first, and the errors it refuses with.

Plain Python over ``sqlite3``, used by the store writer (``writing``) and by whoever asks
whether a store can be written at all (the read-only banners): the curated columns and their
digest (what "the row memadmin last read" means), whether a ``memories`` table is safe to
write, the store's identity, and whether another writer (upstream's Rust module) owns a
project's memory writes.
"""

import hashlib
import json
import sqlite3
from collections.abc import Mapping

from memadmin.core.contextdb.errors import StoreError
from memadmin.core.contextdb.opening import table_columns
from memadmin.core.contextdb.rules import MEMORY_RULES

# The columns whose values are a person's curation: what "the row memadmin last read" means.
CURATED_COLUMNS = (
    "project_path",
    "category",
    "content",
    "importance",
    "scope",
    "shareable",
    "status",
    "expires_at",
    "metadata",
)
# Columns memadmin knows: the memory columns the rules read, and the row's revision.
KNOWN_COLUMNS = frozenset(rule.name for rule in MEMORY_RULES) | {"revision"}
# Known columns memadmin writes only when the store has them (or leaves to their default).
WRITTEN_WHEN_PRESENT = frozenset(
    {
        "last_retrieved_at",
        "verification_status",
        "verified_at",
        "classified_at",
        "metadata_json",
        "mural_cue",
        "mural_cue_hash",
        "mural_cue_at",
        "mural_cue_rejection_count",
        "revision",
    }
)
# Columns memadmin writes that every store it writes must have.
WRITTEN_COLUMNS = KNOWN_COLUMNS - WRITTEN_WHEN_PRESENT
LIVE_STATUSES = ("active", "permanent")
# The newest upstream schema (highest ``schema_migrations.version``) memadmin was tested with:
# v100, after the memory lifecycle of v99. A newer store may write in ways memadmin does not
# know (upstream's own older plugins refuse it: ``enforceSchemaFence`` in ``storage-db.ts``),
# so memadmin serves it read-only.
NEWEST_TESTED_SCHEMA = 100
AUTHORITY_MESSAGE = "context.db memory writes are managed by the Rust module"


class StoreBusy(StoreError):
    """Another process held the store's write lock past the busy timeout."""


class StoreReadOnly(StoreError):
    """The store cannot be written safely, or not by memadmin; the message says why."""


class StoreAuthority(StoreReadOnly):
    """Another writer (upstream's Rust module) owns the project's memory writes."""


class RowChanged(StoreError):
    """The row is not what memadmin last read; ``current`` is the store's row now (or None)."""

    def __init__(self, message: str, current: dict | None):
        super().__init__(message)
        self.current = current


class RowDuplicate(StoreError):
    """Another row of the project and category has the text; ``existing_id`` is its id."""

    def __init__(self, message: str, existing_id: int):
        super().__init__(message)
        self.existing_id = existing_id


def curated_digest(values: Mapping[str, object]) -> str:
    """Return the digest of a row's curated values (``metadata`` as a dict, None as {})."""
    normal = []
    for name in CURATED_COLUMNS:
        value = values.get(name)
        if name == "shareable":
            value = int(bool(value))
        elif name == "metadata":
            value = value or {}
        normal.append(value)
    return hashlib.md5(_DIGEST_JSON(normal).encode("utf-8")).hexdigest()


# One encoder for every digest: `json.dumps` with options builds a new one per call.
_DIGEST_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def _metadata(text: object) -> object:
    if text is None or text == "":
        return {}
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def _merged(text: object) -> object:
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def unwritable_reason(columns: Mapping[str, tuple[bool, object]]) -> str:
    """Return why a ``memories`` table is unsafe to write ("" when it is safe).

    ``columns`` maps each column to (NOT NULL, default). A column memadmin writes that is
    missing, or an unknown NOT NULL column without a default, makes writing unsafe: an
    insert would fail or invent a value. New nullable columns never block writing.
    """
    missing = sorted(WRITTEN_COLUMNS - columns.keys())
    if missing:
        return f"its memories table lacks columns memadmin writes: {', '.join(missing)}"
    unknown = sorted(
        name
        for name, (not_null, default) in columns.items()
        if name not in KNOWN_COLUMNS and not_null and default is None
    )
    if unknown:
        return (
            "its memories table has NOT NULL columns without a default that memadmin "
            f"does not know: {', '.join(unknown)}"
        )
    return ""


def schema_version(connection: sqlite3.Connection) -> int | None:
    """Return the highest migration recorded in ``schema_migrations`` (None without one)."""
    columns = table_columns(connection, "schema_migrations")
    if columns is None or "version" not in columns:
        return None
    row = connection.execute(
        "SELECT max(CASE WHEN typeof(version) = 'integer' THEN version END) FROM schema_migrations"
    ).fetchone()
    return row[0]


def too_new_reason(connection: sqlite3.Connection) -> str:
    """Return why a store's schema is too new for memadmin to write ("" when it is not)."""
    version = schema_version(connection)
    if version is None or version <= NEWEST_TESTED_SCHEMA:
        return ""
    return (
        f"its schema is version {version}, newer than the newest memadmin was tested with "
        f"({NEWEST_TESTED_SCHEMA}); it is served read-only and never written"
    )


def column_facts(connection: sqlite3.Connection) -> dict[str, tuple[bool, object]]:
    """Return each ``memories`` column mapped to (NOT NULL, its default)."""
    rows = connection.execute("PRAGMA table_info(memories)").fetchall()
    return {row[1]: (bool(row[3]) and not row[5], row[4]) for row in rows}


def read_store_uuid(connection: sqlite3.Connection) -> str | None:
    """Return the store's ``store_uuid`` from ``context_store_meta``, or None."""
    if table_columns(connection, "context_store_meta") is None:
        return None
    row = connection.execute(
        "SELECT value FROM context_store_meta WHERE key = 'store_uuid'"
    ).fetchone()
    return row[0] if row else None


def authority_holds(connection: sqlite3.Connection, project_path: str) -> str:
    """Return why another writer owns the project's memory writes ("" when none does).

    This is the condition of upstream's v54 authority triggers: a row for the project in
    ``authority_managed`` or ``authority_repair_pending`` while
    ``context_privilege_state.enabled`` is not 1.
    """
    for table, why in (
        ("authority_managed", "upstream's Rust module manages its memory writes"),
        ("authority_repair_pending", "upstream's Rust module has a repair pending for it"),
    ):
        if table_columns(connection, table) is None:
            continue
        held = connection.execute(
            f"SELECT 1 FROM {table} WHERE project_path = ?", (project_path,)
        ).fetchone()
        if held and not _privileged(connection):
            return why
    return ""


def _privileged(connection: sqlite3.Connection) -> bool:
    if table_columns(connection, "context_privilege_state") is None:
        return False
    row = connection.execute("SELECT enabled FROM context_privilege_state LIMIT 1").fetchone()
    return bool(row and row[0] == 1)


def row_values(row: sqlite3.Row) -> dict:
    """Return a store row as a dict, ``metadata`` and ``merged_from`` decoded."""
    values = dict(row)
    values["metadata"] = _metadata(values.pop("metadata_json", None))
    values["merged_from"] = _merged(values.get("merged_from"))
    return values
