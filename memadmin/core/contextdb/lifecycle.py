"""What a write does on a store with upstream's memory lifecycle (schema v99 and later).

Plain Python over ``sqlite3``, used by the store writer (``writing.StoreTransaction``). It
follows upstream's applier for an applied revision (cortexkit/magic-context,
``packages/plugin/src/features/magic-context/memory/lifecycle-applier.ts``:
``commitMemoryRevision``, ``recordReceipt``, ``memoryAdoptionClass``; evidence from
``memory/storage-memory.ts``: ``mergeMemoryEpisodeEvidence``), for the two operations that
function classes as a dashboard's, ``dashboard_content`` (a text edit) and
``dashboard_archive`` (an archive, a merge's superseded source):

- one ``memory_history`` row per revised memory: its revision and text before the write,
  the time, the reason the person typed (the operation's name when none was typed), the ids
  of the decision's memories and the decision's key;
- one receipt per store transaction (its decision), ``applied`` and ``live``, in
  ``memory_decision_receipts`` and ``memory_journal`` as ``recordReceipt`` writes it;
- the decision's ``memory_mutation_log`` rows marked ``adoption_class='live'``;
- a text edit clears the row's verification (``verify_result``, ``verify_files_json``,
  ``verify_commit``; its ``memory_verifications`` rows): it verified the old text;
- a superseded source links to its successor (``memory_successor_links``) and the
  successor takes the source's ``memory_evidence`` rows; undoing the merge (deleting the
  merged row) drops both again;
- a row memadmin inserts is ``agent``, never ``user`` (``DASHBOARD_SOURCE_TYPE``).

The revision compare-and-set and bump stay where every update does them
(``StoreTransaction._update_row``). A store without ``memories.revision``,
``memory_history`` or ``memory_journal`` is not a lifecycle store: none of this happens.
"""

import json
import sqlite3
import uuid
from collections.abc import Mapping

from memadmin.core.contextdb.opening import table_columns

CONTENT, ARCHIVE = "dashboard_content", "dashboard_archive"
# upstream's ``memoryAdoptionClass``: both dashboard operations are live.
ADOPTION_CLASS = {CONTENT: "live", ARCHIVE: "live"}
WRITER = "memadmin"
# upstream's ``memory/types.ts``: ``user`` requires a link to a host-verified user message,
# and a write without one (a tool call) is ``agent``. A row typed in a dashboard has no such
# link, so on a lifecycle store it is written as ``agent``.
DASHBOARD_SOURCE_TYPE = "agent"
VERIFY_COLUMNS = ("verify_result", "verify_files_json", "verify_commit")


def is_lifecycle_store(connection: sqlite3.Connection) -> bool:
    """Return True when the store has upstream's memory lifecycle (v99)."""
    memories = table_columns(connection, "memories") or {}
    return (
        "revision" in memories
        and table_columns(connection, "memory_history") is not None
        and table_columns(connection, "memory_journal") is not None
    )


def new_decision_key(change_id: object | None = None) -> str:
    """Return a decision key for one store transaction, tied to memadmin's change if given."""
    return f"{WRITER}:{change_id or uuid.uuid4()}"


class Decision:
    """The lifecycle records of one store transaction; ``finish`` writes its receipt."""

    def __init__(self, connection: sqlite3.Connection, now: int, key: str):
        self.connection = connection
        self.now = now
        self.key = key
        self.operations: list[str] = []
        self.memory_ids: list[int] = []
        self.projects: set[str] = set()
        self.log_ids: list[int] = []
        self.memory_columns = table_columns(connection, "memories") or {}

    def revised(self, before: Mapping, operation: str, reason: str) -> None:
        """Record that ``before`` (the row as read in this transaction) is being revised."""
        self.connection.execute(
            "INSERT INTO memory_history (memory_id, revision, previous_text, applied_at, "
            "reason, evidence_json, source_ids_json, decision_key) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                before["id"],
                before.get("revision") or 1,
                before["content"],
                self.now,
                reason.strip() or operation,
                "[]",
                json.dumps([before["id"]]),
                self.key,
            ),
        )
        self.operations.append(operation)
        self.memory_ids.append(before["id"])
        self.projects.add(before["project_path"])

    def logged(self, log_id: int | None, operation: str) -> None:
        """Mark a ``memory_mutation_log`` row with the operation's adoption class."""
        columns = table_columns(self.connection, "memory_mutation_log") or {}
        if log_id is None or "adoption_class" not in columns:
            return
        self.connection.execute(
            "UPDATE memory_mutation_log SET adoption_class = ? WHERE id = ?",
            (ADOPTION_CLASS[operation], log_id),
        )

    def text_changed(self, row_id: int) -> list[str]:
        """Clear the row's verification; return the ``memories`` columns to set to NULL."""
        verifications = table_columns(self.connection, "memory_verifications") or {}
        if "memory_id" in verifications:
            self.connection.execute(
                "DELETE FROM memory_verifications WHERE memory_id = ?", (row_id,)
            )
        return [name for name in VERIFY_COLUMNS if name in self.memory_columns]

    def superseded(self, source_id: int, successor_id: int) -> None:
        """Link a superseded source to its successor, which takes the source's evidence."""
        if table_columns(self.connection, "memory_successor_links") is not None:
            self.connection.execute(
                "INSERT OR IGNORE INTO memory_successor_links (source_id, successor_id, "
                "decision_key) VALUES (?, ?, ?)",
                (source_id, successor_id, self.key),
            )
        evidence = table_columns(self.connection, "memory_evidence") or {}
        if "memory_id" in evidence:
            names = [name for name in evidence if name != "memory_id"]
            listed = ", ".join(names)
            self.connection.execute(
                f"INSERT OR IGNORE INTO memory_evidence (memory_id, {listed}) "
                f"SELECT ?, {listed} FROM memory_evidence WHERE memory_id = ?",
                (successor_id, source_id),
            )

    def deleted(self, row_id: int) -> None:
        """Drop what a merge gave the row memadmin deletes (its undo): links and evidence.

        memadmin deletes a row only to undo its own merge; the sources are restored in the
        same transaction, so their links to the row and the evidence it took go with it.
        """
        if table_columns(self.connection, "memory_successor_links") is not None:
            self.connection.execute(
                "DELETE FROM memory_successor_links WHERE successor_id = ? OR source_id = ?",
                (row_id, row_id),
            )
        if "memory_id" in (table_columns(self.connection, "memory_evidence") or {}):
            self.connection.execute("DELETE FROM memory_evidence WHERE memory_id = ?", (row_id,))

    def finish(self) -> None:
        """Write the decision's receipt (decision receipts, journal), when it revised anything."""
        if not self.memory_ids:
            return
        operation = "+".join(sorted(set(self.operations)))
        receipt = {
            "state": "applied",
            "reason": operation,
            "memoryIds": self.memory_ids,
            "adoptionClass": "live",
            "writer": WRITER,
        }
        project, text = sorted(self.projects)[0], json.dumps(receipt, separators=(",", ":"))
        if table_columns(self.connection, "memory_decision_receipts") is not None:
            self.connection.execute(
                "INSERT INTO memory_decision_receipts (decision_key, project_path, fact_id, "
                "receipt_json, resolved_at) VALUES (?, ?, NULL, ?, ?)",
                (self.key, project, text, self.now),
            )
        self.connection.execute(
            "INSERT INTO memory_journal (project_path, decision_key, operation, receipt_json, "
            "applied_at) VALUES (?, ?, ?, ?, ?)",
            (project, self.key, operation, text, self.now),
        )
