"""What each session of a project really saw, read from its store, against today's selection.

Where the store records applied snapshots (``memory_applied_rows``, upstream's v99), each
session's memories come with the revision each was injected at; otherwise the ids of its
block (``session_meta.memory_block_ids``, as the sync kept them) without one. Each is set
against the store's rows now and today's plugin-mode selection
(`memadmin.core.contextdb.applied.compare_seen`).
"""

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb.applied import (
    AppliedRow,
    SessionSeen,
    compare_seen,
    read_applied,
    read_now,
)
from memadmin.core.contextdb.opening import open_readonly
from memadmin.core.ledger.model import LedgerResult
from memadmin.interop.models import UpstreamSession
from memadmin.interop.write_through.store_writes import project_store
from memadmin.projects.models import Project


@dataclass
class SessionsSeen:
    """Every session's applied memories and their differences; why none, when unreadable."""

    sessions: list[SessionSeen] = field(default_factory=list)
    unreadable: str = ""


def sessions_seen(
    project: Project, sessions: Sequence[UpstreamSession], today: LedgerResult | None
) -> SessionsSeen:
    """Return what each session saw (applied snapshots first, else its block's ids)."""
    upstream = project_store(project)
    if upstream is None:
        return SessionsSeen()
    try:
        connection = open_readonly(Path(upstream.path), timeout=0.2)
    except StoreError as error:
        return SessionsSeen(unreadable=str(error))
    try:
        seen = read_applied(connection, project.identity)
        snapshotted = {entry.session_id for entry in seen}
        seen += [
            SessionSeen(
                session.session_id,
                "",
                "memory_block_ids",
                [AppliedRow(i, None) for i in session.memory_block_ids or () if _whole(i)],
            )
            for session in sessions
            if session.session_id not in snapshotted and session.memory_block_ids
        ]
        now = read_now(connection, {row.memory_id for entry in seen for row in entry.rows})
    except sqlite3.DatabaseError as error:
        return SessionsSeen(unreadable=str(error))
    finally:
        connection.close()
    selection = (
        {row.memory_id: None if row.injected else row.reason for row in today.rows}
        if today is not None
        else {}
    )
    for entry in seen:
        entry.differences = compare_seen(entry, now, selection)
    return SessionsSeen(seen)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
