"""Keep a store's workspaces, their members and what each session was given as memadmin rows.

Called from the sync (``writing.services``), inside its transaction and its ``acting`` block,
so every new version is written by the sync's actor. Reading is read-only
(``memadmin.core.contextdb.extras``). Nothing here refuses a sync: what is wrong is returned
as warnings for the sync summary and kept on the rows (``problem``), where the Workspaces
page shows it:

- a member whose project the store holds no memory of;
- a display name two members of one workspace share;
- ``share_categories`` that is not a JSON list of the five current names (nothing shared);
- a member row whose workspace is not in ``workspaces``.

Workspace edits memadmin holds pending (``MEMADMIN_STORE_WRITES=pending``) are pushed first,
in one store transaction, when the sync may write (`workspaces.services.workspace_push`).
"""

from collections import Counter
from collections.abc import Collection

from memadmin.audit.context import current
from memadmin.core.contextdb import RowProblem, StoreError
from memadmin.core.contextdb.changes import ChangedRead
from memadmin.core.contextdb.extras import MemberRow, StoreExtras, read_extras
from memadmin.core.contextdb.writing import store_transaction
from memadmin.core.ledger import parse_share_categories
from memadmin.core.project_names import name_from_members
from memadmin.projects.models import NAME_MAX_CHARS, Project
from memadmin.projects.services import project_name_from_store

from ..models import (
    SessionBlock,
    UnreadValue,
    UpstreamSession,
    UpstreamStore,
    Workspace,
    WorkspaceMember,
)
from ..write_through.store_writes import store_timeout, store_uuid_of
from .services import workspace_push


def store_extras_sync(
    *, path, store: UpstreamStore, now: int, push: bool = True, changed: ChangedRead | None = None
) -> list[RowProblem]:
    """Bring the store's workspaces and session blocks into memadmin; return the warnings.

    With ``push``, workspace edits memadmin holds pending are written to the store first
    (`workspaces.services.workspace_push`); without, the store's workspaces are taken as they are.
    ``changed``, an incremental sync's read, limits the unread values looked at to its rows
    (a row that did not change keeps its unread values; a deleted row loses them).
    """
    warnings, held = _push_pending(path, store, now) if push else ([], set())
    ids = None if changed is None else _changed_ids(changed)
    try:
        extras = read_extras(path, memory_ids=ids)
    except StoreError as error:
        return [*warnings, RowProblem("workspaces", None, "", f"not read: {error}")]
    warnings += _sync_workspaces(extras, store, now, held)
    _name_projects(store)
    _sync_session_blocks(extras, store)
    _sync_unread(extras, store, ids, None if changed is None else changed.ids)
    return warnings


def _changed_ids(changed: ChangedRead) -> frozenset[int]:
    """Return the ids of the rows an incremental read found changed, skipped ones included."""
    return frozenset(m.id for m in changed.memories) | frozenset(
        p.row_id for p in changed.problems if p.table == "memories" and isinstance(p.row_id, int)
    )


def _push_pending(path, store: UpstreamStore, now: int) -> tuple[list[RowProblem], set[int]]:
    """Push the store's pending workspace edits; return the warnings and the ids still held.

    A store that cannot be written now keeps the edits pending (held: the sync leaves those
    workspaces as memadmin has them) for the next sync to try again.
    """
    pending = list(
        Workspace.objects.filter(store=store, pending_since__isnull=False).order_by("upstream_id")
    )
    if not pending:
        return [], set()
    warnings = []
    try:
        with store_transaction(
            path, store_uuid=store_uuid_of(store), timeout=store_timeout(), now=now
        ) as tx:
            for workspace in pending:
                warning = workspace_push(tx, workspace)
                if warning:
                    warnings.append(RowProblem("workspaces", workspace.upstream_id, "", warning))
    except StoreError as error:
        held = {workspace.upstream_id for workspace in pending}
        message = f"pending workspace edits not written yet ({error}); kept for the next sync"
        return [RowProblem("workspaces", None, "", message)], held
    # Written, or refused and dropped for the store's: pending no more either way.
    Workspace.objects.filter(pk__in=[w.pk for w in pending]).update(
        pending_since=None, base_digest=""
    )
    return warnings, set()


def _sync_unread(
    extras: StoreExtras,
    store: UpstreamStore,
    ids: frozenset[int] | None,
    store_ids: Collection[int] | None,
) -> None:
    """Replace the store's unread values with those read now.

    With ``ids`` (the rows read again) only theirs are replaced, and those of rows not in
    ``store_ids`` (every id the store holds, None: none was deleted) dropped.
    """
    kept = UnreadValue.objects.filter(store=store)
    if ids is not None:
        dropped = set(ids)
        if store_ids is not None:
            dropped.update(
                i for i in kept.values_list("upstream_id", flat=True) if i not in store_ids
            )
        kept = kept.filter(upstream_id__in=dropped)
    kept.delete()
    UnreadValue.objects.bulk_create(
        UnreadValue(
            store=store,
            upstream_id=item.memory_id,
            project_identity=item.project_path[:200],
            column=item.column,
            value=item.value,
        )
        for item in extras.unread
    )


def _save_if_changed(row, values: dict) -> None:
    """Save the row only when a value differs, so an unchanged sync writes no version."""
    changed = [name for name, value in values.items() if getattr(row, name) != value]
    if row.pk is None or changed:
        for name in changed:
            setattr(row, name, values[name])
        row.save()


def _sync_workspaces(
    extras: StoreExtras, store: UpstreamStore, now: int, held: set[int]
) -> list[RowProblem]:
    warnings: list[RowProblem] = []
    kept = {w.upstream_id: w for w in Workspace.objects.filter(store=store)}
    seen: dict[int, Workspace] = {}
    for row in extras.workspaces:
        if row.id in held:
            seen[row.id] = kept[row.id]
            continue
        categories, problem = parse_share_categories(row.share_categories)
        raw = row.share_categories if isinstance(row.share_categories, str) else None
        if row.share_categories is not None and raw is None:
            raw = repr(row.share_categories)
        workspace = kept.get(row.id) or Workspace(store=store, upstream_id=row.id)
        _save_if_changed(
            workspace,
            {
                "name": row.name[:500],
                "share_categories_raw": raw,
                "share_categories": list(categories),
                "problem": problem or "",
                "created_at": row.created_at,
                "upstream_gone_at": None,
            },
        )
        if problem:
            warnings.append(RowProblem("workspaces", row.id, "share_categories", problem))
        seen[row.id] = workspace
    for upstream_id, workspace in kept.items():
        if upstream_id not in seen and workspace.upstream_gone_at is None:
            workspace.upstream_gone_at = now
            workspace.save()
    by_workspace: dict[int, list[MemberRow]] = {}
    for member in extras.members:
        if member.workspace_id not in seen:
            warnings.append(
                RowProblem(
                    "workspace_members",
                    member.project_path,
                    "workspace_id",
                    f"workspace {member.workspace_id} is not in workspaces: member ignored",
                )
            )
            continue
        by_workspace.setdefault(member.workspace_id, []).append(member)
    projects = {p.identity: p for p in Project.objects.filter(identity__in=_identities(extras))}
    for upstream_id, workspace in seen.items():
        if upstream_id in held:
            continue
        warnings += _sync_members(
            workspace, by_workspace.get(upstream_id, []), extras.memory_projects, projects
        )
    return warnings


def _identities(extras: StoreExtras) -> set[str]:
    return {m.project_path for m in extras.members} | {
        s.project_path for s in extras.sessions if s.project_path
    }


def _sync_members(
    workspace: Workspace, rows: list[MemberRow], in_store: frozenset[str], projects: dict
) -> list[RowProblem]:
    warnings = []
    names = Counter(row.display_name for row in rows if row.display_name)
    existing = {m.project_identity: m for m in workspace.members.all()}
    for row in rows:
        problems = []
        if row.project_path not in in_store:
            problems.append(
                f"the store holds no memory of project {row.project_path}: nothing of it is shared"
            )
        if row.display_name and names[row.display_name] > 1:
            problems.append(
                f"the display name {row.display_name!r} is shared by {names[row.display_name]} "
                f"members of workspace {workspace.name!r}: this member's memories are not shared"
            )
        for problem in problems:
            warnings.append(
                RowProblem("workspace_members", row.project_path, "display_name", problem)
            )
        member = existing.pop(row.project_path, None) or WorkspaceMember(
            workspace=workspace, project_identity=row.project_path
        )
        _save_if_changed(
            member,
            {
                "project": projects.get(row.project_path),
                "display_name": row.display_name,
                "display_path": row.display_path,
                "added_at": row.added_at,
                "problem": "; ".join(problems),
            },
        )
    for gone in existing.values():
        gone.delete()
    return warnings


def _name_projects(store: UpstreamStore) -> None:
    """Name the store's projects as its workspace members do; a name a person chose stays.

    Members of workspaces still in the store count, lowest workspace first (as upstream
    picks a project's workspace); a project in none falls back to its short identity.
    """
    members: dict[str, list[tuple[str | None, str | None]]] = {}
    for identity, display_name, display_path in (
        WorkspaceMember.objects.filter(
            workspace__store=store, workspace__upstream_gone_at__isnull=True
        )
        .order_by("workspace__upstream_id")
        .values_list("project_identity", "display_name", "display_path")
    ):
        members.setdefault(identity, []).append((display_name, display_path))
    acting_now = current()
    actor = acting_now.actor if acting_now is not None else "import"
    for project in Project.objects.filter(upstream_link__store=store).exclude(
        name_source=Project.NameSource.USER
    ):
        store_name = name_from_members(members.get(project.identity, ()))[:NAME_MAX_CHARS]
        if (project.name, project.name_source) == (store_name, Project.NameSource.STORE) or (
            not store_name and project.name_source == Project.NameSource.IDENTITY
        ):
            continue  # named so already: no lock, no write
        project_name_from_store(project=project, store_name=store_name, actor=actor)


def _sync_session_blocks(extras: StoreExtras, store: UpstreamStore) -> None:
    sessions = {s.session_id: s for s in UpstreamSession.objects.filter(store=store)}
    blocks = {b.session_id: b for b in SessionBlock.objects.filter(session__store=store)}
    wanted = {s.project_path for s in extras.sessions if s.project_path}
    projects = {p.identity: p for p in Project.objects.filter(identity__in=wanted)}
    for extra in extras.sessions:
        session = sessions.get(extra.session_id)
        if session is None:
            continue
        block = blocks.get(session.pk) or SessionBlock(session=session)
        _save_if_changed(
            block,
            {
                "project": projects.get(extra.project_path) or session.project,
                "harness": extra.harness[:100],
                "block_text": extra.block_text,
                "block_count": extra.block_count,
            },
        )
