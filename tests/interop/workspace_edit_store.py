"""A synced store with upstream's workspace DDL, ``project_state`` and the v54 authority tables.

Built on ``workspace_store.build_team_store`` (three members sharing NAMING and CONSTRAINTS),
with a fourth project of the store in no workspace (``SOLO``) and the tables a workspace edit
writes or checks: ``project_state`` (the epochs it bumps) and upstream's authority tables.
"""

import sqlite3
from pathlib import Path

from tests.upstream_store import AUTHORITY_DDL, _statements

from .workspace_store import API, MEMBERS, OPS, WEB, build_team_store, make_row, team_rows

SOLO = "git:" + "4" * 40
OUTSIDER = "git:" + "5" * 40
PROJECT_STATE_DDL = """
CREATE TABLE project_state (
    project_path TEXT PRIMARY KEY,
    project_memory_epoch INTEGER NOT NULL DEFAULT 0,
    project_user_profile_version INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
)
"""
EPOCHS = {API: 10, WEB: 20, OPS: 30, SOLO: 40}


def build_edit_store(path: Path) -> Path:
    """Build the store; every project starts at its epoch in EPOCHS."""
    every = team_rows(seed=3)
    rows = (
        every[:20]
        + every[160:180]
        + every[320:340]
        + [
            make_row(project_path=SOLO, category="NAMING", content=f"Solo naming rule {n}.")
            for n in range(3)
        ]
    )
    build_team_store(path, rows=rows)
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(PROJECT_STATE_DDL)
        for statement in _statements(AUTHORITY_DDL):
            connection.execute(statement)
        connection.executemany(
            "INSERT INTO project_state (project_path, project_memory_epoch, updated_at) "
            "VALUES (?, ?, 0)",
            list(EPOCHS.items()),
        )
    finally:
        connection.close()
    return path


def run_sql(path: Path, sql: str, params=()) -> None:
    """Change the store as another writer would."""
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(sql, params)
    finally:
        connection.close()


def store_state(path: Path) -> dict:
    """Return what the store says of workspace 1: shares, members (name, path) and epochs."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        shares = connection.execute(
            "SELECT share_categories FROM workspaces WHERE id = 1"
        ).fetchone()
        members = {
            identity: (name, display_path)
            for identity, name, display_path in connection.execute(
                "SELECT project_path, display_name, display_path FROM workspace_members "
                "WHERE workspace_id = 1"
            )
        }
        epochs = dict(
            connection.execute("SELECT project_path, project_memory_epoch FROM project_state")
        )
    finally:
        connection.close()
    return {"shares": shares[0] if shares else None, "members": members, "epochs": epochs}


__all__ = ["API", "EPOCHS", "MEMBERS", "OPS", "OUTSIDER", "SOLO", "WEB", "build_edit_store"]
