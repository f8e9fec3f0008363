"""Build real magic-context stores (``context.db``) on disk for tests.

The ``memories`` DDL, its indexes, the FTS5 table and its triggers follow the upstream facts
(versions 0.38 to 0.47). Two column sets exist:

- ``"newer"``: every column of ``memories`` as upstream has it today.
- ``"older"``: a synthetic earlier shape without the columns upstream added last:
  ``verified_at``, ``classified_at``, ``metadata_json`` and the four ``mural_cue*`` columns.
  Upstream's ``memories`` did not change between 0.38 and 0.47, so this shape stands for a
  store from before 0.38; it exists to prove the reader tolerates absent optional columns.

The migration count follows the version: 78 rows in ``schema_migrations`` for the older set
(0.38), 94 for the newer one (0.47).
"""

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from memadmin.core.hashing import normalized_hash

MEMORY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "INTEGER PRIMARY KEY AUTOINCREMENT"),
    ("project_path", "TEXT NOT NULL"),
    ("category", "TEXT NOT NULL"),
    ("content", "TEXT NOT NULL"),
    ("normalized_hash", "TEXT NOT NULL"),
    ("importance", "INTEGER"),
    ("scope", "TEXT NOT NULL DEFAULT 'project'"),
    ("shareable", "INTEGER NOT NULL DEFAULT 0"),
    ("source_session_id", "TEXT"),
    ("source_type", "TEXT DEFAULT 'historian'"),
    ("seen_count", "INTEGER DEFAULT 1"),
    ("retrieval_count", "INTEGER DEFAULT 0"),
    ("first_seen_at", "INTEGER NOT NULL"),
    ("created_at", "INTEGER NOT NULL"),
    ("updated_at", "INTEGER NOT NULL"),
    ("last_seen_at", "INTEGER NOT NULL"),
    ("last_retrieved_at", "INTEGER"),
    ("status", "TEXT DEFAULT 'active'"),
    ("expires_at", "INTEGER"),
    ("verification_status", "TEXT DEFAULT 'unverified'"),
    ("verified_at", "INTEGER"),
    ("classified_at", "INTEGER"),
    ("superseded_by_memory_id", "INTEGER"),
    ("merged_from", "TEXT"),
    ("metadata_json", "TEXT"),
    ("mural_cue", "TEXT"),
    ("mural_cue_hash", "TEXT"),
    ("mural_cue_at", "INTEGER"),
    ("mural_cue_rejection_count", "INTEGER NOT NULL DEFAULT 0"),
)

LATER_COLUMNS = frozenset(
    {
        "verified_at",
        "classified_at",
        "metadata_json",
        "mural_cue",
        "mural_cue_hash",
        "mural_cue_at",
        "mural_cue_rejection_count",
    }
)

MIGRATION_COUNTS = {"older": 78, "newer": 94}

PROJECT = "git:3f9c2a7d51e04b8c9a6f1e2d3c4b5a6978877665"
OTHER_PROJECT = "dir:9b1e4c7a2f"
STORE_UUID = "5d0f3a52-8c1e-4b7a-9e33-0c2b6d1f4a88"
BASE_TIME_MS = 1_750_000_000_000

_MEMORY_INDEXES = """
CREATE INDEX idx_memories_project_status_category ON memories(project_path, status, category);
CREATE INDEX idx_memories_project_status_expires ON memories(project_path, status, expires_at);
CREATE INDEX idx_memories_project_category_hash
    ON memories(project_path, category, normalized_hash);
"""

_MEMORY_FTS = """
CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, category, content='memories', content_rowid='id'
);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content, category)
    VALUES (new.id, new.content, new.category);
END;
CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content, category)
    VALUES ('delete', old.id, old.content, old.category);
END;
CREATE TRIGGER memories_au AFTER UPDATE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content, category)
    VALUES ('delete', old.id, old.content, old.category);
    INSERT INTO memories_fts(rowid, content, category)
    VALUES (new.id, new.content, new.category);
END;
"""

_META_TABLES = """
CREATE TABLE schema_migrations (
    version INTEGER PRIMARY KEY,
    description TEXT NOT NULL,
    applied_at INTEGER NOT NULL
);
CREATE TABLE context_store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE session_meta (
    session_id TEXT PRIMARY KEY,
    project_path TEXT NOT NULL,
    system_prompt_hash TEXT,
    memory_block_ids TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
"""

_EXTRA_TABLES = """
CREATE TABLE memory_mutation_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_path TEXT NOT NULL,
    mutation_type TEXT NOT NULL
        CHECK (mutation_type IN ('archive', 'delete', 'update', 'superseded')),
    target_memory_id INTEGER NOT NULL,
    superseded_by_id INTEGER,
    category TEXT,
    new_content TEXT,
    queued_at INTEGER NOT NULL
);
CREATE TABLE workspaces (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    share_categories TEXT NOT NULL DEFAULT '["CONSTRAINTS"]',
    created_at INTEGER NOT NULL
);
CREATE TABLE workspace_members (
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
    project_path TEXT NOT NULL,
    display_name TEXT,
    display_path TEXT,
    added_at INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, project_path)
);
CREATE TABLE dream_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_path TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    holder_id TEXT NOT NULL,
    tasks_json TEXT NOT NULL,
    tasks_succeeded INTEGER NOT NULL DEFAULT 0,
    tasks_failed INTEGER NOT NULL DEFAULT 0,
    smart_notes_surfaced INTEGER NOT NULL DEFAULT 0,
    smart_notes_pending INTEGER NOT NULL DEFAULT 0,
    memory_changes_json TEXT
);
CREATE INDEX idx_dream_runs_project ON dream_runs(project_path, finished_at DESC);
CREATE TABLE memory_embeddings (
    memory_id INTEGER NOT NULL,
    embedding BLOB NOT NULL,
    model_id TEXT NOT NULL,
    PRIMARY KEY (memory_id, model_id)
);
CREATE TABLE project_state (
    project_path TEXT PRIMARY KEY,
    project_memory_epoch INTEGER NOT NULL DEFAULT 0,
    project_user_profile_version INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
);
CREATE TABLE memory_write_authority (
    project_path TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE TRIGGER memories_authority_guard BEFORE UPDATE ON memories
WHEN EXISTS (SELECT 1 FROM memory_write_authority WHERE project_path = old.project_path)
BEGIN
    SELECT RAISE(ABORT, 'memories: another writer holds authority for this project');
END;
"""


# Schema v54: while upstream's Rust module holds a project's writes, triggers refuse others.
AUTHORITY_DDL = """
CREATE TABLE authority_managed (project_path TEXT PRIMARY KEY, since INTEGER NOT NULL);
CREATE TABLE authority_repair_pending (project_path TEXT PRIMARY KEY, since INTEGER NOT NULL);
CREATE TABLE context_privilege_state (id INTEGER PRIMARY KEY CHECK (id = 1), enabled INTEGER NOT NULL);
INSERT INTO context_privilege_state (id, enabled) VALUES (1, 0);
""" + "".join(
    f"""
CREATE TRIGGER memories_authority_{event.lower()} BEFORE {event} ON memories
WHEN (SELECT enabled FROM context_privilege_state WHERE id = 1) = 0 AND (
    EXISTS (SELECT 1 FROM authority_managed WHERE project_path = {row}.project_path)
    OR EXISTS (SELECT 1 FROM authority_repair_pending WHERE project_path = {row}.project_path))
BEGIN
    SELECT RAISE(ABORT, 'context.db memory writes are managed by the Rust module');
END;
"""
    for event, row in (("INSERT", "new"), ("UPDATE", "old"), ("DELETE", "old"))
)


def make_row(**overrides: object) -> dict[str, object]:
    """Return one ``memories`` row with realistic values, overridden by ``overrides``.

    ``normalized_hash`` follows ``content`` unless it is overridden itself.
    """
    content = overrides.get("content", "Use scripts/release.sh VERSION for releases.")
    row: dict[str, object] = {
        "project_path": PROJECT,
        "category": "PROJECT_RULES",
        "content": content,
        "normalized_hash": normalized_hash(content) if isinstance(content, str) else None,
        "importance": 50,
        "scope": "project",
        "shareable": 0,
        "source_session_id": "ses_01JX4N7Q8R2M",
        "source_type": "historian",
        "seen_count": 1,
        "retrieval_count": 0,
        "first_seen_at": BASE_TIME_MS,
        "created_at": BASE_TIME_MS,
        "updated_at": BASE_TIME_MS,
        "last_seen_at": BASE_TIME_MS,
        "last_retrieved_at": None,
        "status": "active",
        "expires_at": None,
        "verification_status": "unverified",
        "verified_at": None,
        "classified_at": None,
        "superseded_by_memory_id": None,
        "merged_from": None,
        "metadata_json": None,
        "mural_cue": None,
        "mural_cue_hash": None,
        "mural_cue_at": None,
        "mural_cue_rejection_count": 0,
    }
    row.update(overrides)
    return row


def make_session(**overrides: object) -> dict[str, object]:
    """Return one ``session_meta`` row with realistic values, overridden by ``overrides``."""
    row: dict[str, object] = {
        "session_id": "ses_01JX4N7Q8R2M",
        "project_path": PROJECT,
        "system_prompt_hash": "a3f1c9e07b",
        "memory_block_ids": "[1, 2]",
        "created_at": BASE_TIME_MS,
        "updated_at": BASE_TIME_MS,
    }
    row.update(overrides)
    return row


def memories_ddl(column_set: str = "newer", *, constraints: bool = True) -> str:
    """Return the ``CREATE TABLE memories`` statement for a column set.

    Without ``constraints`` the NOT NULL and UNIQUE constraints are left out: such a table
    lets a test store values upstream's own schema would refuse.
    """
    lines = []
    for name, declaration in MEMORY_COLUMNS:
        if column_set == "older" and name in LATER_COLUMNS:
            continue
        if not constraints:
            declaration = declaration.replace(" NOT NULL", "")
        lines.append(f"  {name} {declaration}")
    if constraints:
        lines.append("  UNIQUE(project_path, category, normalized_hash)")
    return "CREATE TABLE memories (\n" + ",\n".join(lines) + "\n)"


def build_store(
    path: Path,
    *,
    column_set: str = "newer",
    wal: bool = True,
    rows: Iterable[Mapping[str, object]] = (),
    sessions: Iterable[Mapping[str, object]] = (),
    extra_tables: bool = True,
    constraints: bool = True,
    fts: bool = True,
) -> Path:
    """Create an upstream-shaped ``context.db`` at ``path`` and return the path.

    Keys of ``rows`` naming a column absent from the chosen column set are dropped, so
    ``make_row()`` serves both sets. ``constraints=False`` leaves NOT NULL and UNIQUE out of
    ``memories`` (see :func:`memories_ddl`); ``fts=False`` leaves out the FTS5 table and its
    triggers, which take most of the time of inserting many rows.
    """
    if column_set not in MIGRATION_COUNTS:
        raise ValueError(f"column_set must be 'older' or 'newer', not {column_set!r}")
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        if wal:
            connection.execute("PRAGMA journal_mode=WAL")
        # Speed only: neither setting is stored in the file.
        connection.execute("PRAGMA cache_size = -262144")
        connection.execute("PRAGMA synchronous = OFF")
        connection.execute("BEGIN")
        connection.execute(memories_ddl(column_set, constraints=constraints))
        script = _MEMORY_INDEXES + (_MEMORY_FTS if fts else "") + _META_TABLES
        for statement in _statements(script):
            connection.execute(statement)
        if extra_tables:
            for statement in _statements(_EXTRA_TABLES + AUTHORITY_DDL):
                connection.execute(statement)
        connection.executemany(
            "INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
            [
                (version, f"migration {version}", BASE_TIME_MS + version)
                for version in range(1, MIGRATION_COUNTS[column_set] + 1)
            ],
        )
        connection.execute(
            "INSERT INTO context_store_meta (key, value) VALUES ('store_uuid', ?)", (STORE_UUID,)
        )
        insert_rows(connection, "memories", rows)
        insert_rows(connection, "session_meta", sessions)
        connection.execute("COMMIT")
    finally:
        connection.close()
    return path


def insert_rows(
    connection: sqlite3.Connection, table: str, rows: Iterable[Mapping[str, object]]
) -> None:
    """Insert ``rows`` into ``table``, grouping rows that share a set of keys."""
    present = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
    batches: dict[tuple[str, ...], list[tuple[object, ...]]] = {}
    for row in rows:
        names = tuple(name for name in row if name in present)
        batches.setdefault(names, []).append(tuple(row[name] for name in names))
    for names, values in batches.items():
        placeholders = ", ".join("?" for _ in names)
        connection.executemany(
            f"INSERT INTO {table} ({', '.join(names)}) VALUES ({placeholders})", values
        )


def _statements(script: str) -> list[str]:
    """Split a DDL script into statements, keeping trigger bodies whole."""
    statements, current = [], []
    for line in script.strip().splitlines():
        current.append(line)
        candidate = "\n".join(current)
        if sqlite3.complete_statement(candidate):
            statements.append(candidate)
            current = []
    return statements


def write_not_sqlite(path: Path) -> Path:
    """Write a file that is not an SQLite database and return its path."""
    path.write_text("This is a plain text file, not a memory store.\n" * 20)
    return path


def write_sqlite_without_memories(path: Path) -> Path:
    """Write a valid SQLite database without a ``memories`` table and return its path."""
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
        connection.execute("INSERT INTO notes (body) VALUES ('hello')")
    connection.close()
    return path


def write_truncated_copy(source: Path, target: Path, *, keep: float = 0.5) -> Path:
    """Write a consistent copy of ``source`` cut to a fraction of its pages; return ``target``.

    The copy is taken with the backup API and switched to rollback journaling first, so its
    whole content lives in the main file before the cut.
    """
    whole = target.with_name(target.name + ".whole")
    reader = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    writer = sqlite3.connect(whole)
    try:
        reader.backup(writer)
        writer.execute("PRAGMA journal_mode=DELETE")
    finally:
        writer.close()
        reader.close()
    data = whole.read_bytes()
    whole.unlink()
    page_size = int.from_bytes(data[16:18], "big") or 65536
    pages = len(data) // page_size
    target.write_bytes(data[: max(1, int(pages * keep)) * page_size])
    return target
