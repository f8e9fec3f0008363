"""Read one memory's provenance from a lifecycle store (schema v99 and later).

Plain Python over ``sqlite3``: the sessions that observed the memory (``memory_evidence``,
``storage-memory.ts``: ``getMemoryEvidence``), its successor links both ways
(``memory_successor_links``: which memories it replaced, which one replaced it), its conflict
links (``memory_conflict_links``) and its verification result (``memories.verify_result``,
``verify_files_json``, ``verify_commit``). A table or column the store lacks gives nothing;
JSON that cannot be read is kept as text and named.
"""

import json
import sqlite3
from dataclasses import dataclass, field

from memadmin.core.contextdb.opening import table_columns

EVIDENCE_COLUMNS = ("source_session_id", "source_message_id", "source_type", "observed_at")
VERIFY_COLUMNS = ("verify_result", "verify_files_json", "verify_commit")


@dataclass(frozen=True, slots=True)
class Observation:
    """One session that observed the memory's content."""

    session_id: str
    message_id: str | None
    source_type: str
    observed_at: int | None


@dataclass
class Provenance:
    """Where a memory came from and what it was checked against, as the store records it."""

    observations: list[Observation] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)  # sources this memory succeeded
    replaced_by: list[int] = field(default_factory=list)  # successors of this memory
    conflicts: list[int] = field(default_factory=list)
    verify_result: str | None = None
    verify_files: list[str] | str | None = None
    verify_commit: str | None = None
    malformed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Return True when the store records nothing of the memory's provenance."""
        return not (
            self.observations
            or self.replaced
            or self.replaced_by
            or self.conflicts
            or self.verify_result
            or self.verify_files
            or self.verify_commit
        )


def read_provenance(connection: sqlite3.Connection, memory_id: int) -> Provenance:
    """Return the memory's evidence, links and verification, as far as the store has them."""
    found = Provenance()
    evidence = table_columns(connection, "memory_evidence") or {}
    if {"memory_id", *EVIDENCE_COLUMNS} <= evidence.keys():
        found.observations = [
            Observation(
                str(session),
                None if message is None else str(message),
                str(source),
                at if isinstance(at, int) else None,
            )
            for session, message, source, at in connection.execute(
                f"SELECT {', '.join(EVIDENCE_COLUMNS)} FROM memory_evidence "
                "WHERE memory_id = ? ORDER BY observed_at, source_session_id",
                (memory_id,),
            )
        ]
    if table_columns(connection, "memory_successor_links") is not None:
        for source, successor in connection.execute(
            "SELECT source_id, successor_id FROM memory_successor_links "
            "WHERE source_id = ? OR successor_id = ? ORDER BY source_id, successor_id",
            (memory_id, memory_id),
        ):
            if successor == memory_id:
                found.replaced.append(source)
            else:
                found.replaced_by.append(successor)
    if table_columns(connection, "memory_conflict_links") is not None:
        found.conflicts = [
            right if left == memory_id else left
            for left, right in connection.execute(
                "SELECT left_id, right_id FROM memory_conflict_links "
                "WHERE left_id = ? OR right_id = ? ORDER BY left_id, right_id",
                (memory_id, memory_id),
            )
        ]
    columns = [
        name for name in VERIFY_COLUMNS if name in (table_columns(connection, "memories") or {})
    ]
    if columns:
        row = connection.execute(
            f"SELECT {', '.join(columns)} FROM memories WHERE id = ?", (memory_id,)
        ).fetchone()
        values = dict(zip(columns, row, strict=True)) if row else {}
        found.verify_result = _text(values.get("verify_result"))
        found.verify_commit = _text(values.get("verify_commit"))
        files = values.get("verify_files_json")
        if files is not None:
            try:
                parsed = json.loads(files) if isinstance(files, str) else None
            except ValueError:
                parsed = None
            if isinstance(parsed, list):
                found.verify_files = [str(item) for item in parsed]
            else:
                found.verify_files = str(files)
                found.malformed.append("verify_files_json")
    return found


def _text(value: object) -> str | None:
    return None if value is None else str(value)
