"""Read the agent's pending memory proposals from a lifecycle store (schema v99 and later).

Plain Python over ``sqlite3``. Upstream's curator no longer edits memories itself: its
update, archive and merge become rows of ``memory_tool_proposals``
(``memory/lifecycle-applier.ts``, ``proposeMemoryMutation``): the targets' ids
(``target_ids_json``), the revisions they had (``expected_revisions_json``, an array of
``{"id", "revision"}``, ``null`` for a target that was missing) and the proposal itself
(``proposal_json``: ``{"content", "category", "reason"}`` for an update or a merge,
``{"reason", "supersededBy"}`` for an archive, as ``tools/ctx-memory/tools.ts`` writes them).
memadmin only shows them; it never applies or deletes one: upstream has no path for a
human decision on a proposal (no state column, no reader that applies or declines one; see
``docs/store-protocol.md``), so a decision memadmin recorded would be its own invention.

A proposal is **stale** when a target's revision is no longer the one it expected (or the
target is gone): applying it would be refused upstream (``stale_revision``). A column whose
JSON cannot be read is kept as text and named, never raised.

``proposed_change`` says what a proposal would make of its targets (the text now and the
text after, or the archive), for the word diff the pages show.
"""

import json
import sqlite3
from dataclasses import dataclass, field

from memadmin.core.contextdb.opening import table_columns

PROPOSAL_COLUMNS = (
    "id",
    "project_path",
    "source_session_id",
    "writer",
    "operation",
    "target_ids_json",
    "expected_revisions_json",
    "proposal_json",
    "reason",
    "created_at",
)


@dataclass(frozen=True, slots=True)
class Target:
    """A proposal's target as the store holds it now."""

    id: int
    revision: int | None
    content: str
    status: str
    project_path: str


@dataclass(frozen=True, slots=True)
class ProposedChange:
    """What a proposal would make: the targets' text now and after (or an archive)."""

    kind: str  # "text" (update, merge), "archive", or "unreadable"
    before: str
    after: str
    category: str | None
    reason: str
    missing: list[int]


@dataclass
class Proposal:
    """One pending proposal; ``malformed`` names the JSON columns that could not be read."""

    id: int
    source_session_id: str | None
    writer: str
    operation: str
    target_ids: list[int]
    expected: dict[int, int | None]
    proposal: object
    proposal_text: str
    reason: str
    created_at: int | None
    malformed: list[str] = field(default_factory=list)
    stale_ids: list[int] = field(default_factory=list)
    # Each target as the store holds it now: id -> Target (absent: no such row).
    targets_now: dict[int, "Target"] = field(default_factory=dict)

    @property
    def stale(self) -> bool:
        """Return True when a target moved since the proposal was made, or is gone."""
        return bool(self.stale_ids)

    @property
    def proposal_pretty(self) -> str:
        """Return the proposal as indented JSON, or its text as stored when it is malformed."""
        if "proposal_json" in self.malformed:
            return self.proposal_text
        return json.dumps(self.proposal, indent=2, ensure_ascii=False, sort_keys=True)


def read_proposals(
    connection: sqlite3.Connection, project_path: str, memory_id: int | None = None
) -> list[Proposal]:
    """Return the project's pending proposals, oldest first (those naming ``memory_id`` if given).

    A store without ``memory_tool_proposals`` (or without one of its columns) has none.
    """
    columns = table_columns(connection, "memory_tool_proposals")
    if columns is None or not set(PROPOSAL_COLUMNS) <= columns.keys():
        return []
    rows = connection.execute(
        f"SELECT {', '.join(PROPOSAL_COLUMNS)} FROM memory_tool_proposals "
        "WHERE project_path = ? ORDER BY created_at, id",
        (project_path,),
    ).fetchall()
    proposals = [_proposal(row) for row in rows]
    if memory_id is not None:
        proposals = [p for p in proposals if memory_id in p.target_ids]
    _mark_stale(connection, proposals)
    return proposals


def _proposal(row: tuple) -> Proposal:
    values = dict(zip(PROPOSAL_COLUMNS, row, strict=True))
    malformed = []
    targets = _json(values["target_ids_json"])
    if not (isinstance(targets, list) and all(_is_id(t) for t in targets)):
        malformed.append("target_ids_json")
        targets = []
    expected_rows = _json(values["expected_revisions_json"])
    expected: dict[int, int | None] = {}
    if isinstance(expected_rows, list) and all(
        entry is None or (isinstance(entry, dict) and _is_id(entry.get("id")))
        for entry in expected_rows
    ):
        for target, entry in zip(targets, expected_rows, strict=False):
            expected[target] = None if entry is None else entry.get("revision")
    else:
        malformed.append("expected_revisions_json")
    proposal = _json(values["proposal_json"])
    if proposal is _MALFORMED:
        malformed.append("proposal_json")
    return Proposal(
        id=values["id"],
        source_session_id=values["source_session_id"],
        writer=str(values["writer"]),
        operation=str(values["operation"]),
        target_ids=targets,
        expected=expected,
        proposal=proposal,
        proposal_text=str(values["proposal_json"]),
        reason=str(values["reason"]),
        created_at=values["created_at"] if isinstance(values["created_at"], int) else None,
        malformed=malformed,
    )


def proposed_change(proposal: Proposal) -> ProposedChange:
    """Return what the proposal would make of its targets, from the store's rows now.

    An update's or a merge's text is the proposal's ``content`` against the targets' texts
    now (a merge's joined one per line, in the proposal's order); an archive changes no
    text. A proposal whose JSON cannot be read, or that names no text where one is needed,
    is ``unreadable``.
    """
    missing = [t for t in proposal.target_ids if t not in proposal.targets_now]
    before = "\n".join(
        proposal.targets_now[t].content for t in proposal.target_ids if t in proposal.targets_now
    )
    body = proposal.proposal if isinstance(proposal.proposal, dict) else {}
    reason = body.get("reason") if isinstance(body.get("reason"), str) else ""
    category = body.get("category") if isinstance(body.get("category"), str) else None
    content = body.get("content")
    if proposal.malformed or not isinstance(proposal.proposal, dict):
        return ProposedChange("unreadable", before, "", None, reason, missing)
    if proposal.operation == "archive":
        return ProposedChange("archive", before, "", None, reason, missing)
    if proposal.operation in ("update", "merge") and isinstance(content, str):
        return ProposedChange("text", before, content.strip(), category, reason, missing)
    return ProposedChange("unreadable", before, "", category, reason, missing)


def _mark_stale(connection: sqlite3.Connection, proposals: list[Proposal]) -> None:
    ids = sorted({target for p in proposals for target in p.target_ids})
    memory_columns = table_columns(connection, "memories") or {}
    if not ids or "revision" not in memory_columns:
        return
    current: dict[int, Target] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for row in connection.execute(
            "SELECT id, revision, content, status, project_path FROM memories "
            f"WHERE id IN ({', '.join('?' * len(chunk))})",
            chunk,
        ):
            current[row[0]] = Target(row[0], row[1], str(row[2]), str(row[3]), str(row[4]))
    for proposal in proposals:
        proposal.targets_now = {t: current[t] for t in proposal.target_ids if t in current}
        if "expected_revisions_json" in proposal.malformed:
            continue
        proposal.stale_ids = [
            target
            for target in proposal.target_ids
            if target not in current or proposal.expected.get(target) != current[target].revision
        ]


class _Malformed:
    """The value of a JSON column that could not be read."""


_MALFORMED = _Malformed()


def _json(text: object) -> object:
    if not isinstance(text, str):
        return _MALFORMED
    try:
        return json.loads(text)
    except ValueError:
        return _MALFORMED


def _is_id(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
