"""Edit a synced workspace: its shared categories, its members and their display names.

The display names also set the order the plugin gives members their turn (``ORDER BY
display_name, project_path``), so renaming a member is how its turn moves. According to
``MEMADMIN_STORE_WRITES`` (see `write_through.store_writes`):

- ``through``: the edit is written to the store first, in one checked transaction
  (`memadmin.core.contextdb.workspace_writing`, which bumps every old and new member's
  ``project_memory_epoch``), then memadmin's rows, their versions and the audit event;
- ``pending``: memadmin's rows change and the workspace is marked pending; the next sync on
  the machine with the file pushes it (`workspace_push`), or, when the store changed the
  workspace meanwhile, keeps the store's and says so in its summary;
- ``off``: refused, since every sync takes the store's workspaces as they are.

Every refusal (a stale form, an unknown category, a project not in the store or already in
another workspace, a store another writer owns, a busy or replaced store) raises
WorkspaceRefused and changes nothing on either side.
"""

from collections.abc import Mapping, Sequence

from django.db import transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb import writing as store
from memadmin.core.contextdb.workspace_writing import (
    MemberValues,
    WorkspaceChanged,
    check_members,
    share_categories_json,
    workspace_write,
)
from memadmin.core.contextdb.workspace_writing import (
    WorkspaceRefused as StoreWorkspaceRefused,
)
from memadmin.core.ledger import parse_share_categories
from memadmin.projects.models import Project

from ..models import UpstreamProject, Workspace, WorkspaceMember
from ..write_through.store_writes import OFF, PENDING, store_mode, store_timeout, store_uuid_of


class WorkspaceRefused(Exception):
    """The edit was refused and nothing changed; ``code`` names why, the message says it."""

    def __init__(self, message: str, *, code: str):
        super().__init__(message)
        self.code = code


def workspace_update(
    *,
    workspace: Workspace,
    actor,
    version: str,
    share_categories: Sequence[str],
    members: Mapping[str, MemberValues],
    reason: str = "",
) -> Workspace:
    """Make the workspace share ``share_categories`` among exactly ``members``; return it.

    ``version`` is the workspace's digest when the form was made (`Workspace.digest`);
    ``members`` maps each member's project identity to its display name and path. Only what
    changes is written: the same categories keep their stored value, and an edit that
    changes nothing writes nothing (no store write, no audit event, no pending mark).
    """
    mode = store_mode()
    if mode == OFF:
        raise WorkspaceRefused(
            "This server never writes to stores (MEMADMIN_STORE_WRITES=off), and every sync "
            "takes the store's workspaces as they are: edit it where the store is written.",
            code="store_off",
        )
    with transaction.atomic():
        current = Workspace.objects.select_for_update().select_related("store").get(pk=workspace.pk)
        before = current.digest()
        if not version or version != before:
            raise WorkspaceRefused(
                f"Workspace {current.name!r} changed since this page was loaded (a sync or "
                "another person); nothing was saved. Its current state is shown.",
                code="stale",
            )
        if current.upstream_gone_at is not None:
            raise WorkspaceRefused(
                f"Workspace {current.name!r} is gone from the store; nothing was saved.",
                code="gone",
            )
        old = _members_of(current)
        # A name posted back as stored is kept as it is, spaces included; a changed one trimmed.
        members = {
            identity: values if old.get(identity) == values else _trimmed(values)
            for identity, values in members.items()
        }
        stored = _checked(current, share_categories, members)
        shares_kept = sorted(parse_share_categories(stored)[0]) == sorted(current.share_categories)
        if shares_kept:
            # The same categories shared: the stored value stays as written (NULL, its
            # spacing, a value that shares nothing), and the store's is not rewritten.
            stored = current.share_categories_raw
            if members == old:
                return current  # nothing changes: nothing is written, on either side
        now = now_ms()
        if mode == PENDING:
            if current.pending_since is None:
                current.pending_since, current.base_digest = now, before
        else:
            # A workspace still pending (edited while writes were pending) is checked
            # against the store as last read, and is pending no more once written.
            expected = current.base_digest if current.pending_since else before
            categories = None if shares_kept else share_categories
            _write_through(current, categories, members, expected=expected, now=now)
            current.pending_since, current.base_digest = None, ""
        with acting(actor=actor, reason=reason):
            _keep(current, stored, members, now=now)
            audit_record(
                action="workspace_changed",
                target=current,
                changes=_changes(current, old, members, stored),
                reason=reason,
            )
    return current


def workspace_push(tx, workspace: Workspace) -> str:
    """Write a pending workspace edit in the sync's store transaction; return a warning or "".

    On a refusal the sync that follows takes the store's workspace, and the warning says what
    of memadmin's edit was dropped. The caller ends the pending state once the store commits.
    """
    members = {
        m.project_identity: MemberValues(m.display_name or "", m.display_path or "")
        for m in workspace.members.all()
    }
    try:
        workspace_write(
            tx,
            workspace.upstream_id,
            expected=workspace.base_digest or None,
            share_categories=workspace.share_categories,
            members=members,
        )
        warning = ""
    except StoreError as error:
        warning = (
            f"workspace {workspace.name!r}: memadmin's pending edit (shares "
            f"{', '.join(workspace.share_categories) or 'nothing'}; members "
            f"{', '.join(sorted(members))}) was not written: {error}; the store's is kept"
        )
    return warning


def _trimmed(values: MemberValues) -> MemberValues:
    return MemberValues(values.display_name.strip(), values.display_path.strip())


def _checked(workspace: Workspace, categories, members) -> str:
    """Return the stored categories; raise WorkspaceRefused for input the store cannot hold."""
    in_store = set(
        UpstreamProject.objects.filter(store=workspace.store).values_list(
            "project__identity", flat=True
        )
    )
    elsewhere = dict(
        WorkspaceMember.objects.filter(workspace__store=workspace.store)
        .exclude(workspace=workspace)
        .values_list("project_identity", "workspace__name")
    )
    try:
        stored = share_categories_json(categories)
        check_members(
            members,
            before=_members_of(workspace),
            in_store=in_store,
            elsewhere=elsewhere,
        )
    except StoreWorkspaceRefused as error:
        raise WorkspaceRefused(f"{_capital(str(error))}; nothing was saved.", code="bad") from None
    return stored


def _write_through(workspace: Workspace, categories, members, *, expected: str, now: int) -> None:
    name = workspace.name
    try:
        with store.store_transaction(
            workspace.store.path,
            store_uuid=store_uuid_of(workspace.store),
            timeout=store_timeout(),
            now=now,
        ) as tx:
            workspace_write(
                tx,
                workspace.upstream_id,
                expected=expected,
                share_categories=categories,
                members=members,
            )
    except store.StoreBusy as error:
        raise WorkspaceRefused(
            f"The agent is writing to the store; try again. Nothing of {name!r} was saved.",
            code="store_busy",
        ) from error
    except WorkspaceChanged as error:
        raise WorkspaceRefused(
            f"The store's workspace changed since memadmin last read it ({error}); nothing was "
            "saved. The next sync brings its change in.",
            code="store_changed",
        ) from error
    except StoreWorkspaceRefused as error:
        raise WorkspaceRefused(
            f"The store refused the edit: {error}; nothing was saved.", code="bad"
        ) from error
    except store.StoreReadOnly as error:
        raise WorkspaceRefused(
            f"Workspace {name!r} cannot be written: {error}. Nothing was saved.",
            code="store_read_only",
        ) from error
    except StoreError as error:
        raise WorkspaceRefused(
            f"The store refused the edit of {name!r}: {error}. Nothing was saved.",
            code="store_error",
        ) from error


def _members_of(workspace: Workspace) -> dict[str, MemberValues]:
    return {
        m.project_identity: MemberValues(m.display_name or "", m.display_path or "")
        for m in workspace.members.all()
    }


def _keep(workspace: Workspace, stored: str, members, *, now: int) -> None:
    """Save memadmin's rows as the store now holds them (or will, once pushed)."""
    categories, problem = parse_share_categories(stored)
    workspace.share_categories_raw = stored
    workspace.share_categories = list(categories)
    workspace.problem = problem or ""
    workspace.save()
    existing = {m.project_identity: m for m in workspace.members.all()}
    projects = {p.identity: p for p in Project.objects.filter(identity__in=list(members))}
    for identity, member in existing.items():
        if identity not in members:
            member.delete()
    for identity, values in members.items():
        member = existing.get(identity) or WorkspaceMember(
            workspace=workspace, project_identity=identity, added_at=now
        )
        if (
            member.pk is None
            or member.display_name != values.display_name
            or (member.display_path or "") != values.display_path
        ):
            member.display_name = values.display_name
            member.display_path = values.display_path
            member.project = member.project or projects.get(identity)
            member.problem = ""
            member.save()


def _changes(workspace: Workspace, old: dict, members: dict, stored: str) -> dict:
    names = {
        identity: [old[identity].display_name, values.display_name]
        for identity, values in members.items()
        if identity in old and old[identity].display_name != values.display_name
    }
    changes = {
        "share_categories": stored,
        "added": sorted(set(members) - set(old)),
        "removed": sorted(set(old) - set(members)),
        "display_names": names,
    }
    if workspace.pending_since is not None:
        changes["pending"] = True
    return changes


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
