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
update is a compare-and-set on it. On a store with upstream's memory lifecycle (v99) a text
edit, an archive and a supersede also write what upstream's applier writes for a dashboard
operation (``lifecycle``): a history row with the reason typed, a journal receipt, the log's
adoption class, the verification cleared, the successor link and the evidence.
"""

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from memadmin.core.contextdb import lifecycle
from memadmin.core.contextdb.errors import StoreError
from memadmin.core.contextdb.opening import check_file, store_uri, table_columns

# The checks and errors live in ``write_checks``; they stay importable from here.
from memadmin.core.contextdb.write_checks import (
    AUTHORITY_MESSAGE,
    CURATED_COLUMNS,
    KNOWN_COLUMNS,
    LIVE_STATUSES,
    WRITTEN_COLUMNS,
    RowChanged,
    RowDuplicate,
    StoreAuthority,
    StoreBusy,
    StoreReadOnly,
    authority_holds,
    column_facts,
    curated_digest,
    read_store_uuid,
    row_values,
    too_new_reason,
    unwritable_reason,
)
from memadmin.core.hashing import normalized_hash

__all__ = [
    "AUTHORITY_MESSAGE",
    "CURATED_COLUMNS",
    "KNOWN_COLUMNS",
    "LIVE_STATUSES",
    "WRITTEN_COLUMNS",
    "RowChanged",
    "RowDuplicate",
    "StoreAuthority",
    "StoreBusy",
    "StoreReadOnly",
    "StoreTransaction",
    "authority_holds",
    "column_facts",
    "curated_digest",
    "read_revision",
    "read_store_uuid",
    "row_values",
    "store_transaction",
    "too_new_reason",
    "unwritable_reason",
]


class StoreTransaction:
    """One write transaction on a store; made by ``store_transaction``."""

    def __init__(
        self, connection: sqlite3.Connection, path: Path, now: int, decision_key: str = ""
    ):
        self.connection = connection
        self.path = path
        self.now = now
        self.columns = column_facts(connection)
        self.bumped: set[str] = set()
        self.decision = (
            lifecycle.Decision(connection, now, decision_key or lifecycle.new_decision_key())
            if lifecycle.is_lifecycle_store(connection)
            else None
        )

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

    def _expect(self, row_id: int, expected: str | None, revision: int | None = None) -> dict:
        current = self.current(row_id)
        if current is None:
            raise RowChanged(f"row {row_id} is gone from the store", None)
        if expected is not None and curated_digest(current) != expected:
            raise RowChanged(f"row {row_id} changed in the store since memadmin read it", current)
        if revision is not None and "revision" in current and current["revision"] != revision:
            raise RowChanged(
                f"row {row_id} is at revision {current['revision']} in the store, "
                f"not {revision} as when the page was loaded",
                current,
            )
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
        if self.decision is not None and row.get("source_type") == "user":
            # A lifecycle store keeps `user` for host-verified user messages (any insert of
            # memadmin's, a sync's push included).
            row["source_type"] = lifecycle.DASHBOARD_SOURCE_TYPE
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
        reason: str = "",
        expected_revision: int | None = None,
    ) -> dict:
        """Write ``changes`` (column names, ``metadata`` as a dict) to row ``row_id``.

        Refuse with RowChanged when the row is gone or its curated values no longer have
        the digest ``expected``; with RowDuplicate when the new text or category collides.
        ``reason`` is the person's, kept in the store's ``memory_history`` on a lifecycle
        store. ``expected_revision``, when given, must still be the row's ``revision``.
        Return the row as written.
        """
        before = self._expect(row_id, expected, expected_revision)
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
        status = sets.get("status", before["status"])
        operation = _lifecycle_operation(before, status, superseded_by, text_changed)
        if self.decision is not None and operation:
            self.decision.revised(before, operation, reason)
            if text_changed:
                sets.update(dict.fromkeys(self.decision.text_changed(row_id)))
        self._update_row(row_id, sets, before)
        if text_changed:
            self._run(
                "DELETE FROM memory_embeddings WHERE memory_id = ?", (row_id,), "memory_embeddings"
            )
        log_id = None
        if superseded_by is not None:
            log_id = self.log("superseded", before, superseded_by=superseded_by)
        elif status == "archived" and before["status"] != "archived":
            log_id = self.log("archive", before)
        elif text_changed:
            log_id = self.log("update", before, new_content=changes["content"], category=category)
        if self.decision is not None and operation:
            self.decision.logged(log_id, operation)
            if superseded_by is not None:
                self.decision.superseded(row_id, superseded_by)
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
        if self.decision is not None:
            self.decision.deleted(row_id)
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

    def log(self, kind: str, row: Mapping, **values: object) -> int | None:
        """Append one row to ``memory_mutation_log`` (when the store has it); return its id."""
        columns = table_columns(self.connection, "memory_mutation_log")
        if columns is None:
            return None
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
        cursor = self._run(
            f"INSERT INTO memory_mutation_log ({', '.join(names)}) "
            f"VALUES ({', '.join('?' * len(names))})",
            [entry[name] for name in names],
        )
        return cursor.lastrowid

    def finish(self) -> None:
        """Write what the transaction owes at its end (a lifecycle store's journal receipt)."""
        if self.decision is not None:
            self.decision.finish()

    def bump_epochs(self, project_path: str) -> None:
        """Bump ``project_memory_epoch`` for the project and every member of its workspaces."""
        self.bump_projects({project_path} | self.workspace_fellows(project_path))

    def workspace_fellows(self, project_path: str) -> set[str]:
        """Return the identities sharing a workspace with the project, read in this transaction."""
        if table_columns(self.connection, "workspace_members") is None:
            return set()
        rows = self.connection.execute(
            "SELECT DISTINCT other.project_path FROM workspace_members AS own "
            "JOIN workspace_members AS other ON other.workspace_id = own.workspace_id "
            "WHERE own.project_path = ?",
            (project_path,),
        ).fetchall()
        return {row[0] for row in rows}

    def bump_projects(self, identities: Iterable[str]) -> None:
        """Bump ``project_memory_epoch`` once per transaction for each of the identities."""
        projects = set(identities)
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


def read_revision(connection: sqlite3.Connection, row_id: int) -> int | None:
    """Return row ``row_id``'s ``revision`` (None without the column or the row)."""
    if "revision" not in (table_columns(connection, "memories") or {}):
        return None
    row = connection.execute("SELECT revision FROM memories WHERE id = ?", (row_id,)).fetchone()
    return None if row is None else row[0]


def read_revisions(connection: sqlite3.Connection, row_ids: Sequence[int]) -> dict[int, int]:
    """Return the ``revision`` of each of ``row_ids`` the store has (none without the column)."""
    if "revision" not in (table_columns(connection, "memories") or {}):
        return {}
    wanted = sorted(set(row_ids))
    found: dict[int, int] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        found.update(
            connection.execute(
                f"SELECT id, revision FROM memories WHERE id IN ({', '.join('?' * len(chunk))})",
                chunk,
            ).fetchall()
        )
    return found


def _json_or_null(value: object) -> str | None:
    if not value:
        return None
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _lifecycle_operation(
    before: Mapping, status: str, superseded_by: int | None, text_changed: bool
) -> str:
    """Return the lifecycle operation an update is (upstream's dashboard classes), or ""."""
    if superseded_by is not None or (status == "archived" and before["status"] != "archived"):
        return lifecycle.ARCHIVE
    return lifecycle.CONTENT if text_changed else ""


def _brings_in(before: Mapping, status: str, category: str) -> bool:
    """Return True when a change brings the row into the injection (or moves it in it)."""
    if status not in LIVE_STATUSES:
        return False
    return status != before["status"] or category != before["category"]


@contextmanager
def store_transaction(
    path: str | Path,
    *,
    store_uuid: str | None,
    timeout: float,
    now: int,
    decision_key: str = "",
    rehearse: bool = False,
) -> Iterator[StoreTransaction]:
    """Open the store read-write and yield one checked ``BEGIN IMMEDIATE`` transaction.

    ``store_uuid`` is the identity memadmin knows the store by (None: a store without one).
    Raise StoreReadOnly when the file is gone, is another store, has a schema newer than
    memadmin was tested with, or has a ``memories`` table memadmin cannot write safely; StoreBusy when the write lock is not had within
    ``timeout`` seconds. The transaction commits when the block ends without an error and
    rolls back otherwise. ``decision_key`` names the transaction in a lifecycle store's
    journal (a fresh one when empty). ``rehearse`` rolls back even a block that ends well:
    every check made, nothing written.
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
            too_new = too_new_reason(connection)
            if too_new:
                raise StoreReadOnly(f"{path}: {too_new}")
            transaction = StoreTransaction(connection, path, now, decision_key)
            reason = unwritable_reason(transaction.columns)
            if reason:
                raise StoreReadOnly(f"{path}: {reason}")
            yield transaction
            transaction.finish()
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        if rehearse:
            connection.execute("ROLLBACK")
            return
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
