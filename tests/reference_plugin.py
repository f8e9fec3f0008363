"""A second reading of magic-context's memory injection, straight from a store, for tests.

Written from upstream's source (0.38, ``ahrav/magic-context`` at the v0.38.0 notes), not from
memadmin's core, and reading the SQLite file directly, so a test comparing the two compares
two independent readings:

- ``storage-memory.ts``: ``getMemorySelectColumns`` (COALESCE of importance, scope,
  shareable), ``isMemoryRow``, ``getMemoriesByProject(s)`` (the SQL and its order);
- ``workspaces.ts``: ``resolveWorkspaceIdentitySet``, ``selectWorkspaceShareCategories``,
  ``normalizeShareCategories``, ``sourceNameForMemory``;
- ``inject-compartments.ts``: ``memorySelectionOrder``, ``memoryRenderOrder``,
  ``trimMemoriesToBudgetV2``, ``trimWorkspaceMemoriesToBudgetV2``,
  ``createMemoryBlockAccounting``, ``renderMemoryLineV2``, ``renderMemoryBlockV2``;
- ``estimateTokens``' fallback: ``Math.ceil(text.length / 3.5)`` over UTF-16 code units.

Rows are plain dicts with upstream's camelCase property names, as the plugin sees them.
"""

import functools
import json
import math
import sqlite3
from pathlib import Path

CATEGORY_PRIORITY = [
    "PROJECT_RULES",
    "ARCHITECTURE",
    "CONSTRAINTS",
    "CONFIG_VALUES",
    "NAMING",
    "USER_DIRECTIVES",
    "USER_PREFERENCES",
    "CONFIG_DEFAULTS",
    "ARCHITECTURE_DECISIONS",
    "ENVIRONMENT",
    "WORKFLOW_RULES",
    "KNOWN_ISSUES",
]
V2 = CATEGORY_PRIORITY[:5]
COLUMN_MAP = {
    "id": "id",
    "projectPath": "project_path",
    "category": "category",
    "content": "content",
    "normalizedHash": "normalized_hash",
    "importance": "importance",
    "scope": "scope",
    "shareable": "shareable",
    "sourceSessionId": "source_session_id",
    "sourceType": "source_type",
    "seenCount": "seen_count",
    "retrievalCount": "retrieval_count",
    "firstSeenAt": "first_seen_at",
    "createdAt": "created_at",
    "updatedAt": "updated_at",
    "lastSeenAt": "last_seen_at",
    "lastRetrievedAt": "last_retrieved_at",
    "status": "status",
    "expiresAt": "expires_at",
    "verificationStatus": "verification_status",
    "verifiedAt": "verified_at",
    "supersededByMemoryId": "superseded_by_memory_id",
    "mergedFrom": "merged_from",
    "metadataJson": "metadata_json",
}


def select_columns() -> str:
    """Return ``getMemorySelectColumns`` for a store that has every column."""
    parts = []
    for prop, column in COLUMN_MAP.items():
        if prop == "importance":
            parts.append(f"COALESCE({column}, 50) AS {prop}")
        elif prop == "scope":
            parts.append(f"COALESCE({column}, 'project') AS {prop}")
        elif prop == "shareable":
            parts.append(f"COALESCE({column}, 0) AS {prop}")
        else:
            parts.append(f"{column} AS {prop}")
    return ", ".join(parts)


def _number(value) -> bool:  # typeof value === "number"
    return isinstance(value, int | float) and not isinstance(value, bool)


def _nullable_number(value) -> bool:
    return value is None or _number(value)


def _nullable_string(value) -> bool:
    return value is None or isinstance(value, str)


def is_memory_row(row: dict) -> bool:
    """Return ``isMemoryRow(row)``."""
    return (
        _number(row["id"])
        and isinstance(row["projectPath"], str)
        and row["category"] in CATEGORY_PRIORITY
        and isinstance(row["content"], str)
        and isinstance(row["normalizedHash"], str)
        and _number(row["importance"])
        and row["scope"] in ("project", "ecosystem", "universe")
        and _number(row["shareable"])
        and _nullable_string(row["sourceSessionId"])
        and row["sourceType"] in ("historian", "agent", "dreamer", "user")
        and _number(row["seenCount"])
        and _number(row["retrievalCount"])
        and _number(row["firstSeenAt"])
        and _number(row["createdAt"])
        and _number(row["updatedAt"])
        and _number(row["lastSeenAt"])
        and _nullable_number(row["lastRetrievedAt"])
        and row["status"] in ("active", "permanent", "archived")
        and _nullable_number(row["expiresAt"])
        and row["verificationStatus"] in ("unverified", "verified", "stale", "flagged")
        and _nullable_number(row["verifiedAt"])
        and _nullable_number(row["supersededByMemoryId"])
        and _nullable_string(row["mergedFrom"])
        and _nullable_string(row["metadataJson"])
    )


def _rows(connection: sqlite3.Connection, sql: str, params) -> list[dict]:
    cursor = connection.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]


def workspace_of(connection: sqlite3.Connection, project: str):
    """Return (identities, names by identity, share categories or None), as upstream resolves."""
    rows = connection.execute(
        """SELECT member.project_path AS identity, member.display_name AS displayName
             FROM workspace_members AS anchor
             JOIN workspace_members AS member ON member.workspace_id = anchor.workspace_id
            WHERE anchor.project_path = ?
            ORDER BY member.display_name ASC, member.project_path ASC""",
        (project,),
    ).fetchall()
    identities, names = [], {}
    for identity, name in rows:
        if not isinstance(identity, str) or not identity or identity in identities:
            continue
        identities.append(identity)
        if isinstance(name, str) and name:
            names[identity] = name
    if not identities:
        return [project], {}, None
    if len(identities) < 2:
        return identities, names, None
    row = connection.execute(
        """SELECT workspace.share_categories FROM workspace_members AS member
             JOIN workspaces AS workspace ON workspace.id = member.workspace_id
            WHERE member.project_path IN (?) ORDER BY workspace.id ASC LIMIT 1""",
        (project,),
    ).fetchone()
    return identities, names, normalize_share_categories(row[0] if row else None)


def normalize_share_categories(raw) -> list[str]:
    """Return ``normalizeShareCategories(raw)``."""
    if raw is None:
        return ["CONSTRAINTS"]
    if not isinstance(raw, str):
        return []
    try:
        parsed = json.loads(raw)
    except ValueError:
        return []
    if not isinstance(parsed, list):
        return []
    out = []
    for value in parsed:
        if not isinstance(value, str) or value not in V2:
            return []
        if value not in out:
            out.append(value)
    return sorted(out)


def read_candidates(connection, project: str, identities, shares, now: int) -> list[dict]:
    """Return ``getMemoriesByProject`` / ``getMemoriesByProjects``'s rows, filtered."""
    base = f"SELECT {select_columns()} FROM memories WHERE "
    order = " ORDER BY category ASC, updated_at DESC, id ASC"
    if shares is None:
        sql = (
            base + "project_path = ? AND status IN ('active', 'permanent') "
            "AND (expires_at IS NULL OR expires_at > ?)" + order
        )
        return [r for r in _rows(connection, sql, (project, now)) if is_memory_row(r)]
    foreign = [i for i in identities if i != project]
    predicates = [
        "(project_path IN (?) AND status IN ('active','permanent') "
        "AND (expires_at IS NULL OR expires_at > ?))"
    ]
    params: list = [project, now]
    if foreign and shares:
        predicates.append(
            f"(project_path IN ({', '.join('?' * len(foreign))}) "
            "AND status IN ('active','permanent') AND (expires_at IS NULL OR expires_at > ?) "
            f"AND category IN ({', '.join('?' * len(shares))}) "
            "AND shareable = 1 AND scope IN ('project','ecosystem','universe'))"
        )
        params += [*foreign, now, *shares]
    sql = base + "(" + " OR ".join(predicates) + ")" + order
    return [r for r in _rows(connection, sql, params) if is_memory_row(r)]


def estimate_tokens(text: str) -> int:
    """Return ``Math.ceil(text.length / 3.5)``, ``length`` in UTF-16 code units."""
    return math.ceil(len(text.encode("utf-16-le")) // 2 / 3.5)


def escape_content(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attr(text: str) -> str:
    return escape_content(text).replace('"', "&quot;").replace("'", "&apos;")


def _recency(row: dict):
    values = [v for v in (row["lastSeenAt"], row["verifiedAt"]) if v is not None]
    return max(values) if values else None


def selection_compare(tie_break: str):
    """Return ``memorySelectionOrder`` (0.38: id), or 0.46's recency tie-break."""

    def compare(left: dict, right: dict) -> int:
        if left["status"] == "permanent" and right["status"] != "permanent":
            return -1
        if right["status"] == "permanent" and left["status"] != "permanent":
            return 1
        diff = right["importance"] - left["importance"]
        if diff != 0:
            return diff
        if tie_break == "recent":
            a, b = _recency(left), _recency(right)
            if a != b:
                if a is None:
                    return 1
                if b is None:
                    return -1
                return b - a
        return left["id"] - right["id"]

    return functools.cmp_to_key(compare)


def render_compare(left: dict, right: dict) -> int:
    """Return ``memoryRenderOrder``."""
    lp = V2.index(left["category"]) if left["category"] in V2 else -1
    rp = V2.index(right["category"]) if right["category"] in V2 else -1
    if lp >= 0 or rp >= 0:
        if lp < 0:
            return 1
        if rp < 0:
            return -1
        if lp != rp:
            return lp - rp
    elif left["category"] != right["category"]:
        a = left["category"].encode("utf-16-be")
        b = right["category"].encode("utf-16-be")
        return -1 if a < b else 1
    return left["id"] - right["id"]


class Accounting:
    """``createMemoryBlockAccounting``."""

    def __init__(self, names: dict[int, str]):
        self.names = names
        self.seen: set[str] = set()
        self.used = estimate_tokens("<project-memory>\n</project-memory>")

    def line(self, row: dict) -> str:
        name = self.names.get(row["id"])
        source = f" [{escape_content(name)}]" if name else ""
        return f"#{row['id']}{source}: {escape_content(row['content'])}"

    def cost(self, row: dict) -> int:
        cost = estimate_tokens(self.line(row) + "\n")
        if row["category"] not in self.seen:
            tag = escape_attr(row["category"])
            cost += estimate_tokens(f"<{tag}>\n</{tag}>\n")
        return cost

    def admit(self, row: dict, cost: int) -> None:
        self.used += cost
        self.seen.add(row["category"])


def trim(rows: list[dict], budget: int, identities, names, project, tie_break) -> list[dict]:
    """Return the selected rows: ``trimMemoriesToBudgetV2`` or its workspace variant."""
    key = selection_compare(tie_break)
    source = {
        r["id"]: names[r["projectPath"]]
        for r in rows
        if r["projectPath"] != project and r["projectPath"] in names
    }
    accounting = Accounting(source if len(identities) > 1 else {})
    selected: list[dict] = []
    taken: set[int] = set()

    def try_select(row) -> None:
        if row["id"] in taken:
            return
        cost = accounting.cost(row)
        if accounting.used + cost > budget:
            return
        selected.append(row)
        taken.add(row["id"])
        accounting.admit(row, cost)

    if len(identities) <= 1:
        for row in sorted(rows, key=key):
            try_select(row)
        return selected
    for row in sorted([r for r in rows if r["status"] == "permanent"], key=key):
        try_select(row)
    floor = max(0, budget - accounting.used) / max(1, len(identities))
    for identity in identities:
        spent = 0
        members = [r for r in rows if r["status"] != "permanent" and r["projectPath"] == identity]
        for row in sorted(members, key=key):
            if row["id"] in taken:
                continue
            cost = accounting.cost(row)
            if spent + cost > floor or accounting.used + cost > budget:
                continue
            selected.append(row)
            taken.add(row["id"])
            accounting.admit(row, cost)
            spent += cost
    for row in sorted([r for r in rows if r["id"] not in taken], key=key):
        try_select(row)
    return selected


def render(selected: list[dict], names: dict[str, str], project: str) -> str:
    """Return ``renderMemoryBlockV2`` for the selected rows."""
    if not selected:
        return ""
    lines = ["<project-memory>"]
    open_category = None
    for row in sorted(selected, key=functools.cmp_to_key(render_compare)):
        if row["category"] != open_category:
            if open_category is not None:
                lines.append(f"</{escape_attr(open_category)}>")
            open_category = row["category"]
            lines.append(f"<{escape_attr(open_category)}>")
        name = names.get(row["projectPath"]) if row["projectPath"] != project else None
        source = f" [{escape_content(name)}]" if name else ""
        lines.append(f"#{row['id']}{source}: {escape_content(row['content'])}")
    lines.append(f"</{escape_attr(open_category)}>")
    lines.append("</project-memory>")
    return "\n".join(lines)


def plugin_block(path: Path, project: str, *, budget: int, now: int, tie_break="recent") -> str:
    """Return the block the plugin injects for ``project`` of the store at ``path``."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        identities, names, shares = workspace_of(connection, project)
        rows = read_candidates(connection, project, identities, shares, now)
    finally:
        connection.close()
    if shares is None:
        identities, names = [project], {}
    selected = trim(rows, budget, identities, names, project, tie_break)
    return render(selected, names, project)


def dropped_ids(path: Path, project: str, *, now: int) -> set[int]:
    """Return the ids of the project's live rows that ``isMemoryRow`` rejects."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = _rows(
            connection,
            f"SELECT {select_columns()} FROM memories WHERE project_path = ? "
            "AND status IN ('active','permanent') AND (expires_at IS NULL OR expires_at > ?)",
            (project, now),
        )
    finally:
        connection.close()
    return {r["id"] for r in rows if not is_memory_row(r)}
