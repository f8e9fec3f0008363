"""Write memories into a live magic-context store the way its own desktop dashboard does.

Plain Python over ``sqlite3``. One ``StoreTransaction`` is one ``BEGIN IMMEDIATE``
transaction on a store opened read-write without creating it (``mode=rw``), with the busy
timeout set before anything else and foreign keys on. Inside it the store is checked first:
it is the store expected (its ``store_uuid``), and its ``memories`` table is one memadmin
can write safely. Each row written is checked again against the state memadmin last read
(``curated_digest``); a row that moved, or another row holding the same text in the
category, refuses the whole transaction and nothing is written.

What each change does follows upstream: a text change recomputes ``normalized_hash``,
clears ``classified_at`` and deletes the row's embeddings, and is logged ``update`` with the
new text in ``memory_mutation_log``; an archive is logged ``archive``, a supersede
``superseded``, a delete ``delete``; a change that brings a memory into the injection
(restore, pin, unpin, a category move) bumps ``project_state.project_memory_epoch`` for the
project and every other member of its workspaces. Where ``memories.revision`` exists each
update is a compare-and-set on it.
"""

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from memadmin.core.contextdb.errors import StoreError
from memadmin.core.contextdb.opening import check_file, store_uri, table_columns
from memadmin.core.hashing import normalized_hash

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
# Columns memadmin writes that every store it writes must have.
WRITTEN_COLUMNS = frozenset(
    {
        "id",
        "project_path",
        "category",
        "content",
        "normalized_hash",
        "importance",
        "scope",
        "shareable",
        "source_session_id",
        "source_type",
        "seen_count",
        "retrieval_count",
        "first_seen_at",
        "created_at",
        "updated_at",
        "last_seen_at",
        "status",
        "expires_at",
        "superseded_by_memory_id",
        "merged_from",
    }
)
# Columns memadmin knows: written when present, or left to their default.
KNOWN_COLUMNS = WRITTEN_COLUMNS | {
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
LIVE_STATUSES = ("active", "permanent")
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
    text = json.dumps(normal, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.md5(text.encode("utf-8")).hexdigest()


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


class StoreTransaction:
    """One write transaction on a store; made by ``store_transaction``."""

    def __init__(self, connection: sqlite3.Connection, path: Path, now: int):
        self.connection = connection
        self.path = path
        self.now = now
        self.columns = column_facts(connection)
        self.bumped: set[str] = set()

    # --- reading

    def current(self, row_id: int) -> dict | None:
        """Return the store's row ``row_id`` now, or None when it is gone."""
        row = self.connection.execute("SELECT * FROM memories WHERE id = ?", (row_id,)).fetchone()
        return None if row is None else row_values(row)

    def check_project(self, project_path: str) -> None:
        """Raise StoreAuthority when another writer owns the project's memory writes."""
        why = authority_holds(self.connection, project_path)
        if why:
            raise StoreAuthority(f"{self.path}: project {project_path} is read-only: {why}")

    def _expect(self, row_id: int, expected: str | None) -> dict:
        current = self.current(row_id)
        if current is None:
            raise RowChanged(f"row {row_id} is gone from the store", None)
        if expected is not None and curated_digest(current) != expected:
            raise RowChanged(f"row {row_id} changed in the store since memadmin read it", current)
        return current

    def _refuse_duplicate(self, project: str, category: str, digest: str, row_id=None) -> None:
        row = self.connection.execute(
            "SELECT id FROM memories WHERE project_path = ? AND category = ? "
            "AND normalized_hash = ? AND id IS NOT ?",
            (project, category, digest, row_id),
        ).fetchone()
        if row is not None:
            raise RowDuplicate(
                f"the same text already exists as ID {row[0]} in {category}; "
                "merge or archive the duplicate first",
                row[0],
            )

    # --- writing

    def insert(self, values: Mapping[str, object]) -> int:
        """Insert a row (columns as keys, ``metadata`` as a dict); return its id."""
        project, category = values["project_path"], values["category"]
        self.check_project(project)
        digest = normalized_hash(values["content"])
        self._refuse_duplicate(project, category, digest)
        row = {
            name: value
            for name, value in values.items()
            if name in self.columns and name not in ("id", "metadata")
        }
        row["normalized_hash"] = digest
        if "metadata_json" in self.columns:
            row["metadata_json"] = _json_or_null(values.get("metadata"))
        if isinstance(row.get("merged_from"), list | tuple):
            row["merged_from"] = (
                json.dumps(sorted(row["merged_from"])) if row["merged_from"] else None
            )
        names = list(row)
        cursor = self._run(
            f"INSERT INTO memories ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            [row[name] for name in names],
        )
        if values.get("status") in LIVE_STATUSES:
            self.bump_epochs(project)
        return cursor.lastrowid

    def update(
        self,
        row_id: int,
        changes: Mapping[str, object],
        *,
        expected: str | None,
        superseded_by: int | None = None,
    ) -> dict:
        """Write ``changes`` (column names, ``metadata`` as a dict) to row ``row_id``.

        Refuse with RowChanged when the row is gone or its curated values no longer have
        the digest ``expected``; with RowDuplicate when the new text or category collides.
        Return the row as written.
        """
        before = self._expect(row_id, expected)
        self.check_project(before["project_path"])
        sets = {name: value for name, value in changes.items() if name != "metadata"}
        if "metadata" in changes and "metadata_json" in self.columns:
            sets["metadata_json"] = _json_or_null(changes["metadata"])
        if superseded_by is not None:
            sets["superseded_by_memory_id"] = superseded_by
        text_changed = "content" in changes and changes["content"] != before["content"]
        if text_changed:
            sets["normalized_hash"] = normalized_hash(changes["content"])
            if "classified_at" in self.columns:
                sets["classified_at"] = None
        category = sets.get("category", before["category"])
        if text_changed or category != before["category"]:
            digest = sets.get("normalized_hash", before["normalized_hash"])
            self._refuse_duplicate(before["project_path"], category, digest, row_id)
        sets.setdefault("updated_at", self.now)
        self._update_row(row_id, sets, before)
        if text_changed:
            self._run(
                "DELETE FROM memory_embeddings WHERE memory_id = ?", (row_id,), "memory_embeddings"
            )
        status = sets.get("status", before["status"])
        if superseded_by is not None:
            self.log("superseded", before, superseded_by=superseded_by)
        elif status == "archived" and before["status"] != "archived":
            self.log("archive", before)
        elif text_changed:
            self.log("update", before, new_content=changes["content"], category=category)
        if _brings_in(before, status, category):
            self.bump_epochs(before["project_path"])
        return self.current(row_id)

    def delete(self, row_id: int, *, expected: str | None) -> None:
        """Delete row ``row_id`` as upstream does: log ``delete``, drop its embeddings, the row."""
        before = self._expect(row_id, expected)
        self.check_project(before["project_path"])
        self.log("delete", before)
        self._run(
            "DELETE FROM memory_embeddings WHERE memory_id = ?", (row_id,), "memory_embeddings"
        )
        self._run("DELETE FROM memories WHERE id = ?", (row_id,))

    def _update_row(self, row_id: int, sets: dict, before: dict) -> None:
        names = list(sets)
        assignments = ", ".join(f"{name} = ?" for name in names)
        params = [sets[name] for name in names]
        where = "id = ?"
        if "revision" in self.columns:
            # Compare-and-set: the revision read in this transaction must still be the row's.
            assignments += ", revision = coalesce(revision, 0) + 1"
            where += " AND revision IS ?"
            params += [row_id, before.get("revision")]
        else:
            params.append(row_id)
        cursor = self._run(f"UPDATE memories SET {assignments} WHERE {where}", params)
        if cursor.rowcount != 1:
            raise RowChanged(f"row {row_id} changed in the store while being written", None)

    def log(self, kind: str, row: Mapping, **values: object) -> None:
        """Append one row to ``memory_mutation_log`` (when the store has it)."""
        columns = table_columns(self.connection, "memory_mutation_log")
        if columns is None:
            return
        entry = {
            "project_path": row["project_path"],
            "mutation_type": kind,
            "target_memory_id": row["id"],
            "superseded_by_id": values.get("superseded_by"),
            "category": values.get("category", row["category"]),
            "new_content": values.get("new_content"),
            "queued_at": self.now,
        }
        entry = {name: value for name, value in entry.items() if name in columns}
        names = list(entry)
        self._run(
            f"INSERT INTO memory_mutation_log ({', '.join(names)}) "
            f"VALUES ({', '.join('?' * len(names))})",
            [entry[name] for name in names],
        )

    def bump_epochs(self, project_path: str) -> None:
        """Bump ``project_memory_epoch`` for the project and every member of its workspaces."""
        projects = {project_path}
        if table_columns(self.connection, "workspace_members") is not None:
            rows = self.connection.execute(
                "SELECT DISTINCT other.project_path FROM workspace_members AS own "
                "JOIN workspace_members AS other ON other.workspace_id = own.workspace_id "
                "WHERE own.project_path = ?",
                (project_path,),
            ).fetchall()
            projects |= {row[0] for row in rows}
        columns = table_columns(self.connection, "project_state")
        if columns is None:
            return
        for project in sorted(projects - self.bumped):
            self.connection.execute(
                "INSERT INTO project_state (project_path, project_memory_epoch, updated_at) "
                "VALUES (?, 1, ?) ON CONFLICT (project_path) DO UPDATE SET "
                "project_memory_epoch = project_memory_epoch + 1, updated_at = excluded.updated_at",
                (project, self.now),
            )
        self.bumped |= projects

    def set_meta(self, entries: Mapping[str, str]) -> None:
        """Upsert ``entries`` into ``context_store_meta`` (never ``store_uuid``)."""
        if "store_uuid" in entries:
            raise StoreError("key 'store_uuid' belongs to upstream and is never written")
        if table_columns(self.connection, "context_store_meta") is None:
            raise StoreReadOnly(f"{self.path}: the store has no context_store_meta table")
        self.connection.executemany(
            "INSERT INTO context_store_meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            list(entries.items()),
        )

    def _run(self, sql: str, params, table: str = "memories") -> sqlite3.Cursor:
        if table != "memories" and table_columns(self.connection, table) is None:
            return self.connection.cursor()
        try:
            return self.connection.execute(sql, params)
        except sqlite3.DatabaseError as error:
            if AUTHORITY_MESSAGE in str(error):
                raise StoreAuthority(
                    f"{self.path}: the store refused the write: {error} "
                    "(another writer owns this project's memories)"
                ) from error
            raise


def _json_or_null(value: object) -> str | None:
    if not value:
        return None
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _brings_in(before: Mapping, status: str, category: str) -> bool:
    """Return True when a change brings the row into the injection (or moves it in it)."""
    if status not in LIVE_STATUSES:
        return False
    return status != before["status"] or category != before["category"]


@contextmanager
def store_transaction(
    path: str | Path, *, store_uuid: str | None, timeout: float, now: int
) -> Iterator[StoreTransaction]:
    """Open the store read-write and yield one checked ``BEGIN IMMEDIATE`` transaction.

    ``store_uuid`` is the identity memadmin knows the store by (None: a store without one).
    Raise StoreReadOnly when the file is gone, is another store, or has a ``memories``
    table memadmin cannot write safely; StoreBusy when the write lock is not had within
    ``timeout`` seconds. The transaction commits when the block ends without an error and
    rolls back otherwise.
    """
    path = Path(path)
    try:
        check_file(path)
    except StoreError as error:
        raise StoreReadOnly(f"the store file is gone or unreadable: {error}") from error
    try:
        connection = sqlite3.connect(
            store_uri(path, "rw"), uri=True, timeout=timeout, isolation_level=None
        )
    except sqlite3.DatabaseError as error:
        raise StoreReadOnly(f"{path}: cannot be opened for writing ({error})") from error
    try:
        connection.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        connection.execute("PRAGMA foreign_keys = ON")
        connection.row_factory = sqlite3.Row
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise StoreBusy(f"{path}: the agent is writing to the store; try again") from error
            raise StoreReadOnly(f"{path}: cannot be written ({error})") from error
        try:
            _check_identity(connection, path, store_uuid)
            transaction = StoreTransaction(connection, path, now)
            reason = unwritable_reason(transaction.columns)
            if reason:
                raise StoreReadOnly(f"{path}: {reason}")
            yield transaction
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        try:
            connection.execute("COMMIT")
        except sqlite3.OperationalError as error:
            connection.execute("ROLLBACK")
            raise StoreBusy(f"{path}: the agent is writing to the store; try again") from error
    finally:
        connection.close()


def _check_identity(connection: sqlite3.Connection, path: Path, store_uuid: str | None) -> None:
    if table_columns(connection, "memories") is None:
        raise StoreReadOnly(f"{path}: not a magic-context store any more (no memories table)")
    found = read_store_uuid(connection)
    if found != store_uuid:
        raise StoreReadOnly(
            f"{path} is now another store (store_uuid {found or 'none'}, "
            f"expected {store_uuid or 'none'}); nothing is written to it"
        )
