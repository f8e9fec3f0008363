"""Stores with upstream's workspace tables and session columns, for the workspace tests.

The DDL is upstream's (``features/magic-context/migrations.ts``, versions 34 and 35, and
``storage-db.ts`` for the ``session_meta`` columns), added to a store built by
``tests.upstream_store.build_store`` without its simplified extra tables.
"""

import random
import sqlite3
from pathlib import Path

from tests.upstream_store import BASE_TIME_MS, build_store, insert_rows, make_row, make_session

WORKSPACE_DDL = """
CREATE TABLE IF NOT EXISTS workspaces (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    share_categories TEXT NOT NULL DEFAULT '["CONSTRAINTS"]'
);
CREATE TABLE IF NOT EXISTS workspace_members (
    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    project_path TEXT NOT NULL,
    display_name TEXT NOT NULL,
    display_path TEXT NOT NULL,
    added_at INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, project_path)
);
CREATE UNIQUE INDEX IF NOT EXISTS idx_workspace_member_unique ON workspace_members(project_path);
"""
NAME_INDEX = (
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_workspace_member_name "
    "ON workspace_members(workspace_id, display_name)"
)
SESSION_COLUMNS = (
    "ALTER TABLE session_meta ADD COLUMN harness TEXT NOT NULL DEFAULT 'opencode'",
    "ALTER TABLE session_meta ADD COLUMN memory_block_cache TEXT DEFAULT ''",
    "ALTER TABLE session_meta ADD COLUMN memory_block_count INTEGER DEFAULT 0",
)

API = "git:" + "1" * 40
WEB = "git:" + "2" * 40
OPS = "git:" + "3" * 40
MEMBERS = (
    (API, "api <core> & co", "/work/api"),
    (WEB, "web>ui", "/work/web"),
    (OPS, "ops & 'infra'", "/work/ops"),
)
NOW = BASE_TIME_MS + 10_000_000
CATEGORIES = ("PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "NAMING", "CONFIG_VALUES")
WORDS = [
    "deploy",
    "<queue>",
    "&",
    "retry",
    "cache",
    "token",
    "budget",
    "schema",
    "index",
    "rollout",
    "canary",
]


def team_rows(seed: int = 16) -> list[dict]:
    """Return rows of three projects: shareable or not, every status, lengths and importances."""
    rng = random.Random(seed)
    rows = []
    for identity, _, _ in MEMBERS:
        for n in range(160):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 140)))
            status = rng.choices(["active", "permanent", "archived"], [85, 8, 7])[0]
            expires = None
            if rng.random() < 0.05:
                expires = NOW - 1 if rng.random() < 0.5 else NOW + 10**9
            rows.append(
                make_row(
                    project_path=identity,
                    category=rng.choice(CATEGORIES),
                    content=f"{identity[4:8]} fact {n}: {words}.",
                    importance=rng.choice([None, 20, 40, 50, 50, 60, 80, 95]),
                    shareable=rng.choice([0, 1, 1]),
                    status=status,
                    expires_at=expires,
                    updated_at=BASE_TIME_MS + rng.randint(0, 5000),
                    last_seen_at=BASE_TIME_MS + rng.randint(0, 5000),
                    verified_at=rng.choice([None, BASE_TIME_MS + rng.randint(0, 5000)]),
                )
            )
    return rows


def build_team_store(
    path: Path,
    *,
    rows: list[dict] | None = None,
    share_categories: str | None = '["NAMING", "CONSTRAINTS"]',
    members=MEMBERS,
    name_index: bool = True,
    sessions: list[dict] = (),
) -> Path:
    """Build a store whose three projects share a workspace ("team <&>")."""
    build_store(path, rows=team_rows() if rows is None else rows, extra_tables=False)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.executescript(WORKSPACE_DDL)
        if name_index:
            connection.execute(NAME_INDEX)
        for statement in SESSION_COLUMNS:
            connection.execute(statement)
        workspace = {"name": "team <&>", "created_at": BASE_TIME_MS, "updated_at": BASE_TIME_MS}
        if share_categories is not None:
            workspace["share_categories"] = share_categories
        insert_rows(connection, "workspaces", [workspace])
        insert_rows(
            connection,
            "workspace_members",
            [
                {
                    "workspace_id": 1,
                    "project_path": identity,
                    "display_name": name,
                    "display_path": display_path,
                    "added_at": BASE_TIME_MS,
                }
                for identity, name, display_path in members
            ],
        )
        insert_rows(connection, "session_meta", sessions)
    finally:
        connection.close()
    return path


__all__ = ["API", "MEMBERS", "NOW", "OPS", "WEB", "build_team_store", "make_row", "make_session"]
