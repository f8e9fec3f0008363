"""Give a test store upstream's memory lifecycle: schema v99 and v100.

Follows upstream's migration as read in its source (cortexkit/magic-context,
``packages/plugin/src/features/magic-context/migration-v99-memory-lifecycle.ts``,
``installMemoryLifecycleSchema``; v100 from ``migrations-v100.test.ts``): the same columns,
tables, keys and checks, written here in our own words. Two tables are not in that file:

- ``memory_evidence`` comes from ``memory/storage-memory.ts`` (``getMemoryEvidence``,
  ``recordMemoryEvidenceInCurrentTransaction``), which reads and writes the six columns
  below with ``INSERT OR IGNORE``; its key (memory, content hash, session) is inferred from
  that use, its DDL was not read.
- ``memory_verifications``: the upstream facts name it (not its columns); a table keyed by
  the memory stands for it.

Of v99's tables only those a dashboard write or read touches are built, plus the two
applied-projection tables the brief names; the staging tables (publications, fact blocks,
pending facts, stage and check attempts, activity ledger) are left out.
"""

import sqlite3
from pathlib import Path

from tests.upstream_store import BASE_TIME_MS, _statements

LIFECYCLE_VERSION = 100

_MEMORY_COLUMNS = (
    ("memories", "revision", "INTEGER NOT NULL DEFAULT 1"),
    ("memories", "verify_result", "TEXT"),
    ("memories", "verify_files_json", "TEXT"),
    ("memories", "verify_commit", "TEXT"),
    (
        "memory_mutation_log",
        "adoption_class",
        "TEXT NOT NULL DEFAULT 'live' CHECK(adoption_class IN ('live','deferred'))",
    ),
    # v100
    ("session_meta", "served_prefix", "TEXT"),
    ("session_meta", "held_release", "TEXT"),
)

LIFECYCLE_DDL = """
CREATE TABLE memory_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    previous_text TEXT NOT NULL,
    applied_at INTEGER NOT NULL,
    reason TEXT NOT NULL,
    evidence_json TEXT NOT NULL,
    source_ids_json TEXT NOT NULL,
    decision_key TEXT NOT NULL,
    UNIQUE(memory_id, revision)
);
CREATE TABLE memory_journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_path TEXT NOT NULL,
    decision_key TEXT NOT NULL UNIQUE,
    operation TEXT NOT NULL,
    receipt_json TEXT NOT NULL,
    applied_at INTEGER NOT NULL
);
CREATE TABLE memory_successor_links (
    source_id INTEGER NOT NULL,
    successor_id INTEGER NOT NULL,
    decision_key TEXT NOT NULL,
    PRIMARY KEY(source_id, successor_id),
    CHECK(source_id != successor_id)
);
CREATE TABLE memory_conflict_links (
    left_id INTEGER NOT NULL,
    right_id INTEGER NOT NULL,
    decision_key TEXT NOT NULL,
    PRIMARY KEY(left_id, right_id),
    CHECK(left_id < right_id)
);
CREATE TABLE memory_tool_proposals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_path TEXT NOT NULL,
    source_session_id TEXT,
    proposal_key TEXT UNIQUE,
    writer TEXT NOT NULL,
    operation TEXT NOT NULL,
    target_ids_json TEXT NOT NULL,
    expected_revisions_json TEXT NOT NULL,
    proposal_json TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE memory_decision_receipts (
    decision_key TEXT PRIMARY KEY,
    project_path TEXT NOT NULL,
    fact_id INTEGER,
    receipt_json TEXT NOT NULL,
    resolved_at INTEGER NOT NULL
);
CREATE TABLE memory_clause_evidence (
    memory_id INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    clause_ordinal INTEGER NOT NULL,
    text_hash TEXT NOT NULL,
    evidence_json TEXT NOT NULL,
    PRIMARY KEY(memory_id, revision, clause_ordinal)
);
CREATE TABLE memory_applied_snapshots (
    session_id TEXT NOT NULL,
    harness TEXT NOT NULL DEFAULT 'opencode',
    project_path TEXT NOT NULL,
    applied_epoch INTEGER NOT NULL,
    applied_mutation_cursor INTEGER NOT NULL,
    max_memory_id INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    source_generation INTEGER NOT NULL,
    m0_bytes TEXT NOT NULL,
    m1_bytes TEXT NOT NULL,
    mural_payload TEXT NOT NULL,
    mural_hash TEXT NOT NULL,
    applied_revisions_json TEXT NOT NULL,
    selection_metadata_json TEXT NOT NULL,
    activity_expiry_clocks_json TEXT NOT NULL,
    policy_budget_identity_json TEXT NOT NULL,
    text_cue_search_manifest_json TEXT NOT NULL,
    admission_ledger_json TEXT NOT NULL,
    correction_receipts_json TEXT NOT NULL,
    correction_cursors_json TEXT NOT NULL,
    PRIMARY KEY(session_id, harness, project_path)
);
CREATE TABLE memory_applied_rows (
    session_id TEXT NOT NULL,
    harness TEXT NOT NULL DEFAULT 'opencode',
    project_path TEXT NOT NULL,
    memory_id INTEGER NOT NULL,
    applied_revision INTEGER NOT NULL,
    projected_text TEXT NOT NULL,
    projected_metadata_json TEXT NOT NULL,
    PRIMARY KEY(session_id, harness, project_path, memory_id)
);
CREATE TABLE memory_evidence (
    memory_id INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    source_session_id TEXT NOT NULL,
    source_message_id TEXT,
    source_type TEXT NOT NULL,
    observed_at INTEGER NOT NULL,
    PRIMARY KEY(memory_id, content_hash, source_session_id)
);
CREATE TABLE memory_verifications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id INTEGER NOT NULL,
    result TEXT NOT NULL,
    checked_at INTEGER NOT NULL
);
"""


def add_lifecycle(path: Path, *, version: int = LIFECYCLE_VERSION) -> Path:
    """Migrate a store built by ``build_store`` to upstream's lifecycle schema; return ``path``.

    ``schema_migrations`` is filled up to ``version`` (100 by default; a higher one stands for
    a store newer than memadmin knows).
    """
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("BEGIN")
        for table, column, declaration in _MEMORY_COLUMNS:
            connection.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        for statement in _statements(LIFECYCLE_DDL):
            connection.execute(statement)
        connection.executemany(
            "INSERT OR IGNORE INTO schema_migrations (version, description, applied_at) "
            "VALUES (?, ?, ?)",
            [
                (number, f"migration {number}", BASE_TIME_MS + number)
                for number in range(1, version + 1)
            ],
        )
        connection.execute("COMMIT")
    finally:
        connection.close()
    return path


def set_schema_version(path: Path, version: int) -> None:
    """Record migrations up to ``version`` in the store (as a newer upstream would)."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.executemany(
            "INSERT OR IGNORE INTO schema_migrations (version, description, applied_at) "
            "VALUES (?, ?, ?)",
            [(n, f"migration {n}", BASE_TIME_MS + n) for n in range(1, version + 1)],
        )
    finally:
        connection.close()
