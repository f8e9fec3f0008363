"""The Workspaces pages: each store's workspaces, their members, what they share, what is wrong."""

from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.htmx_request import HtmxHttpRequest

from .models import Workspace, WorkspaceMember


def _workspaces():
    members = WorkspaceMember.objects.select_related("project").order_by(
        "display_name", "project_identity"
    )
    return Workspace.objects.select_related("store").prefetch_related(
        Prefetch("members", queryset=members)
    )


@require_GET
@role_required("viewer")
def workspaces(request: HtmxHttpRequest) -> HttpResponse:
    """List every workspace synced from a store, with its members and shared categories."""
    return render(
        request,
        "interop/workspaces.html",
        {"workspaces": _workspaces().order_by("store_id", "upstream_id")},
    )


@require_GET
@role_required("viewer")
def workspace(request: HtmxHttpRequest, workspace_pk: int) -> HttpResponse:
    """Show one workspace: its members (linked to their projects' ledgers) and its versions."""
    row = get_object_or_404(_workspaces(), pk=workspace_pk)
    return render(
        request,
        "interop/workspace.html",
        {"workspace": row, "versions": row.history.order_by("-history_date")[:20]},
    )
