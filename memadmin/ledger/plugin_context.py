"""What the plugin knows about a project beyond its own memories: workspace, budget, pack order.

Selectors only. A synced project's workspace comes from the rows the sync keeps
(`interop.Workspace`, `interop.WorkspaceMember`); its budget from the user's config files or
the default of the store's plugin version (`memadmin.core.userconfig`). Where the input is bad
the ledger falls back and says so, in `warnings`: a member with a problem shares nothing,
a config file that does not parse is passed over.
"""

from dataclasses import dataclass, field

from memadmin.core.ledger import LedgerMemory, Workspace, WorkspaceMember, member_order
from memadmin.core.userconfig import UserBudget, user_budget
from memadmin.interop.models import UnreadValue, UpstreamProject
from memadmin.interop.models import Workspace as WorkspaceRow
from memadmin.interop.models import WorkspaceMember as MemberRow
from memadmin.projects.models import Project
from memadmin.taxonomy.models import Category


@dataclass(frozen=True, slots=True)
class LedgerWorkspace:
    """A project's workspace as the ledger uses it, and what it had to leave out.

    `workspace` is None for a project in no workspace; `row` the workspace shown;
    `sharing` the member projects memadmin holds whose memories may be shared.
    """

    workspace: Workspace | None
    row: WorkspaceRow | None = None
    sharing: tuple[Project, ...] = ()
    warnings: tuple[str, ...] = field(default=())


def ledger_workspace(project: Project) -> LedgerWorkspace:
    """Return the project's workspace as the plugin resolves it (lowest workspace id first).

    Every member counts in the floor, as upstream counts them; a member with a problem (not
    in the store, a display name shared with another member) shares nothing, and says so.
    """
    memberships = list(
        MemberRow.objects.filter(project=project, workspace__upstream_gone_at__isnull=True)
        .select_related("workspace")
        .order_by("workspace__upstream_id")
    )
    if not memberships:
        return LedgerWorkspace(None)
    rows = list(
        MemberRow.objects.filter(
            workspace_id__in=[m.workspace_id for m in memberships]
        ).select_related("project")
    )
    members = member_order(WorkspaceMember(row.project_identity, row.display_name) for row in rows)
    if len(members) < 2:
        return LedgerWorkspace(None, memberships[0].workspace)
    first = memberships[0].workspace
    warnings = []
    if first.problem:
        warnings.append(f"Workspace {first.name!r}: share_categories {first.problem}.")
    sharing = []
    for row in rows:
        if row.project_id == project.pk:
            continue
        if row.problem:
            warnings.append(f"{row}: {row.problem}.")
        elif row.project is not None:
            sharing.append(row.project)
    core = Workspace(project.identity, members, tuple(first.share_categories))
    return LedgerWorkspace(core, first, tuple(sharing), tuple(warnings))


def ledger_budget(project: Project) -> UserBudget:
    """Return the budget the ledger opens with, and where it comes from.

    A synced project uses the user's budget: its own config file (where a workspace row
    tells the project's path), the user's file, else the default of the store's version.
    Any other project uses its own budget.
    """
    link = UpstreamProject.objects.filter(project=project).select_related("store").first()
    if link is None:
        return UserBudget(project.injection_budget, "this project's budget in memadmin")
    roots = tuple(
        path
        for path in MemberRow.objects.filter(project=project)
        .exclude(display_path=None)
        .exclude(display_path="")
        .values_list("display_path", flat=True)
    )
    return user_budget(project_roots=roots, migrations=link.store.migrations)


def pack_categories(project: Project) -> tuple[str, ...]:
    """Return the names of the project's pack categories in priority order."""
    return tuple(
        Category.objects.filter(project=project)
        .order_by("priority", "name")
        .values_list("name", flat=True)
    )


def with_unread(project: Project, memories: list[LedgerMemory]) -> list[LedgerMemory]:
    """Return the memories, each carrying the store's values memadmin could not keep as they are.

    The sync reads some values the plugin's reader rejects as something it accepts (a NULL
    `source_type` as `historian`); the ledger judges the store's value (`interop.UnreadValue`).
    One query; the same list when there is nothing to add.
    """
    found = {
        upstream_id: ((column, value),)
        for upstream_id, column, value in UnreadValue.objects.filter(
            store__projects__project=project, project_identity=project.identity
        ).values_list("upstream_id", "column", "value")
    }
    if not found:
        return memories
    return [
        memory._replace(unread=found[memory.id]) if memory.id in found else memory
        for memory in memories
    ]
