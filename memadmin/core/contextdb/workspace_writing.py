"""Write a workspace's shared categories and members into a store, as upstream's dashboard does.

Upstream's desktop dashboard (``packages/dashboard/src-tauri/src/workspaces.rs``,
``apply_workspace_changes``) saves one workspace's staged edits in one ``BEGIN IMMEDIATE``
transaction: it reads the workspace and its members inside the transaction, validates the
whole final member set (share categories among the five current names, stored as a compact
JSON array in their priority order; a display name non-empty and unique in the workspace; a
project in at most one workspace; a project not both added and removed), writes the
removals, then the new members (``added_at`` now), then the changed display names (through
temporary names, as the unique index on ``(workspace_id, display_name)`` would otherwise
refuse a swap), then ``share_categories`` and ``updated_at``. When the membership, a
display name or the shared categories changed, it bumps ``project_memory_epoch`` once for
every project that was or is a member (old members and new), so each rebuilds its block.

memadmin adds its own checks before writing, each refusing the whole transaction with nothing
written: the workspace is still what memadmin last read (``workspace_digest``), a new member
is a project the store holds memories of, and no project concerned has its memory writes
owned by another writer (upstream's authority tables). Plain Python over ``sqlite3``; the
transaction is the memory writer's (``writing.store_transaction``).
"""

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from memadmin.core.contextdb.errors import StoreError
from memadmin.core.contextdb.opening import table_columns
from memadmin.core.contextdb.write_checks import StoreAuthority, StoreReadOnly, authority_holds
from memadmin.core.ledger.reader import SHARE_CATEGORIES
from memadmin.core.ledger.workspace import parse_share_categories

TEMPORARY_NAME = "__memadmin_tmp_{workspace}_{now}_{index}"


class WorkspaceRefused(StoreError):
    """The edit itself is not one the store can take (bad input); nothing was written."""


class WorkspaceChanged(StoreError):
    """The store's workspace is not what memadmin last read; nothing was written."""


@dataclass(frozen=True, slots=True)
class MemberValues:
    """What a member row holds besides its identity."""

    display_name: str
    display_path: str


@dataclass(frozen=True, slots=True)
class WorkspaceWritten:
    """What a write did: the members before and after, the stored categories, who was bumped."""

    before: frozenset[str]
    after: frozenset[str]
    share_categories: str
    bumped: frozenset[str]


def workspace_digest(
    share_categories: object, members: Iterable[tuple[str, str | None, str | None]]
) -> str:
    """Return the digest of a workspace's shared categories (raw) and members.

    ``members`` are (identity, display name, display path). The workspace's name and the
    members' ``added_at`` are left out: memadmin never writes them.
    """
    raw = (
        share_categories
        if share_categories is None or isinstance(share_categories, str)
        else (repr(share_categories))
    )
    text = json.dumps(
        [raw, sorted([identity, name or "", path or ""] for identity, name, path in members)],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def canonical_share_categories(categories: Iterable[str]) -> list[str]:
    """Return the categories once each, in priority order; raise WorkspaceRefused on another name."""
    wanted = set()
    for category in categories:
        if category not in SHARE_CATEGORIES:
            raise WorkspaceRefused(
                f"{category!r} is not a category a workspace can share; "
                f"the five are {', '.join(SHARE_CATEGORIES)}"
            )
        wanted.add(category)
    return [category for category in SHARE_CATEGORIES if category in wanted]


def share_categories_json(categories: Iterable[str]) -> str:
    """Return the stored form: a compact JSON array, as upstream's dashboard writes it."""
    return json.dumps(canonical_share_categories(categories), separators=(",", ":"))


def check_members(
    members: Mapping[str, MemberValues],
    *,
    before: Mapping[str, MemberValues],
    in_store: Iterable[str],
    elsewhere: Mapping[str, str],
) -> None:
    """Raise WorkspaceRefused unless ``members`` is a member set the store can hold.

    ``before`` are the current members and their values, ``in_store`` the identities the
    store holds memories of, ``elsewhere`` maps identities already in another workspace to
    that workspace's name. A display name kept as stored is not checked (an empty one, or
    one two members share, is the store's to keep); a new or changed one must be a name no
    other member has.
    """
    in_store = set(in_store)
    chosen = {identity: values.display_name for identity, values in members.items()}
    for identity in sorted(members):
        name = chosen[identity]
        kept = identity in before and (before[identity].display_name or "") == name
        if not kept:
            if not name.strip():
                raise WorkspaceRefused(f"the display name of {identity} is empty")
            others = sorted(o for o, other in chosen.items() if other == name and o != identity)
            if others:
                first, second = sorted([identity, others[0]])
                raise WorkspaceRefused(
                    f"the display name {name!r} is used by both {first} and {second}"
                )
        if identity in before:
            continue
        if identity in elsewhere:
            raise WorkspaceRefused(
                f"project {identity} already belongs to workspace {elsewhere[identity]!r}"
            )
        if identity not in in_store:
            raise WorkspaceRefused(f"the store holds no memory of project {identity}")


def workspace_write(
    tx,
    workspace_id: int,
    *,
    expected: str | None,
    share_categories: Sequence[str] | None,
    members: Mapping[str, MemberValues],
) -> WorkspaceWritten:
    """Make the store's workspace share ``share_categories`` among exactly ``members``.

    ``share_categories`` None, or the categories the stored value shares already, leave that
    value as it is (NULL, its spacing, a value that shares nothing). Only what changes is
    written: ``updated_at`` moves only when a member or the shared categories do.

    ``tx`` is an open ``StoreTransaction``. Refuse with WorkspaceChanged when the workspace
    is gone or its digest is not ``expected`` (None: not checked); WorkspaceRefused for an
    edit the store cannot hold; StoreAuthority when another writer owns a project concerned;
    StoreReadOnly when the store has no workspace tables memadmin can write.
    """
    connection = tx.connection
    _check_tables(connection, tx.path)
    row = connection.execute(
        "SELECT share_categories FROM workspaces WHERE id = ?", (workspace_id,)
    ).fetchone()
    if row is None:
        raise WorkspaceChanged(f"workspace {workspace_id} is gone from the store")
    stored = row[0]
    if share_categories is not None:
        wanted = share_categories_json(share_categories)
        if parse_share_categories(wanted)[0] != parse_share_categories(row[0])[0]:
            stored = wanted  # the same categories keep the stored value, however it is spelled
    old = {
        identity: MemberValues(name, path)
        for identity, name, path in connection.execute(
            "SELECT project_path, display_name, display_path FROM workspace_members "
            "WHERE workspace_id = ?",
            (workspace_id,),
        )
    }
    found = workspace_digest(row[0], ((i, m.display_name, m.display_path) for i, m in old.items()))
    if expected is not None and found != expected:
        raise WorkspaceChanged(
            f"workspace {workspace_id} changed in the store since memadmin read it"
        )
    check_members(
        members,
        before=old,
        in_store=_in_store(connection, set(members) - set(old)),
        elsewhere=_elsewhere(connection, workspace_id, set(members) - set(old)),
    )
    concerned = set(old) | set(members)
    for identity in sorted(concerned):
        why = authority_holds(connection, identity)
        if why:
            raise StoreAuthority(f"{tx.path}: project {identity} is read-only: {why}")
    renamed = [
        identity
        for identity in sorted(set(old) & set(members))
        if (old[identity].display_name or "") != members[identity].display_name
    ]
    for identity in sorted(set(old) - set(members)):
        connection.execute(
            "DELETE FROM workspace_members WHERE workspace_id = ? AND project_path = ?",
            (workspace_id, identity),
        )
    for index, identity in enumerate(renamed):
        temporary = TEMPORARY_NAME.format(workspace=workspace_id, now=tx.now, index=index)
        _rename(connection, workspace_id, identity, temporary)
    for identity in sorted(set(members) - set(old)):
        connection.execute(
            "INSERT INTO workspace_members "
            "(workspace_id, project_path, display_name, display_path, added_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                workspace_id,
                identity,
                members[identity].display_name,
                members[identity].display_path,
                tx.now,
            ),
        )
    for identity in renamed:
        _rename(connection, workspace_id, identity, members[identity].display_name)
    if stored != row[0]:
        connection.execute(
            "UPDATE workspaces SET share_categories = ? WHERE id = ?", (stored, workspace_id)
        )
    moved = stored != row[0] or set(old) != set(members) or renamed
    if moved and "updated_at" in table_columns(connection, "workspaces"):
        connection.execute(
            "UPDATE workspaces SET updated_at = ? WHERE id = ?", (tx.now, workspace_id)
        )
    shared_before = parse_share_categories(row[0])[0]
    shared_after = parse_share_categories(stored)[0]
    changed = set(old) != set(members) or renamed or shared_before != shared_after
    bumped = frozenset(concerned) if changed else frozenset()
    tx.bump_projects(bumped)
    return WorkspaceWritten(frozenset(old), frozenset(members), stored, bumped)


def _check_tables(connection, path) -> None:
    workspaces = table_columns(connection, "workspaces")
    members = table_columns(connection, "workspace_members")
    if workspaces is None or members is None or "share_categories" not in workspaces:
        raise StoreReadOnly(
            f"{path}: the store has no workspace tables with share_categories "
            "(a plugin older than schema 35): workspaces cannot be written"
        )
    needed = {"workspace_id", "project_path", "display_name", "display_path", "added_at"}
    missing = sorted(needed - members.keys())
    if missing:
        raise StoreReadOnly(f"{path}: workspace_members lacks columns: {', '.join(missing)}")


def _in_store(connection, identities: set[str]) -> set[str]:
    return {
        identity
        for identity in identities
        if connection.execute(
            "SELECT 1 FROM memories WHERE project_path = ? LIMIT 1", (identity,)
        ).fetchone()
    }


def _elsewhere(connection, workspace_id: int, identities: set[str]) -> dict[str, str]:
    found = {}
    for identity in identities:
        row = connection.execute(
            "SELECT workspace.name FROM workspace_members AS member "
            "JOIN workspaces AS workspace ON workspace.id = member.workspace_id "
            "WHERE member.project_path = ? AND member.workspace_id != ?",
            (identity, workspace_id),
        ).fetchone()
        if row is not None:
            found[identity] = row[0]
    return found


def _rename(connection, workspace_id: int, identity: str, name: str) -> None:
    connection.execute(
        "UPDATE workspace_members SET display_name = ? WHERE workspace_id = ? AND project_path = ?",
        (name, workspace_id, identity),
    )
