"""The Workspaces pages: each store's workspaces, their members, what they share, what is wrong.

A curator edits a workspace on its page (a plain POST form: shared categories, display names,
removals, one addition), written back through `workspaces.services.workspace_update`.
"""

from django.contrib import messages
from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import has_role, role_required
from memadmin.web.htmx_request import HtmxHttpRequest

from ..models import Workspace, WorkspaceMember
from ..workspaces.forms import desired_members, edit_forms, too_many_rows
from ..workspaces.services import WorkspaceRefused, workspace_update

# Refusals that are about the state moving under the form, not about what was typed.
CONFLICT_CODES = frozenset({"stale", "store_changed", "store_busy", "gone"})
MORE_ROWS_THAN_MEMBERS = (
    "The page sent more member rows than the workspace has members: it changed since this "
    "page was loaded. Nothing was saved; here it is as it is now."
)


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
    forms = edit_forms(row) if has_role(request.user, "curator") else (None, None)
    return _page(request, row, *forms)


@require_POST
@role_required("curator")
def workspace_edit(request: HtmxHttpRequest, workspace_pk: int) -> HttpResponse:
    """Save a curator's edit of the workspace, or show the page again with why it was refused."""
    row = get_object_or_404(_workspaces(), pk=workspace_pk)
    form, formset = edit_forms(row, request.POST)
    if not formset.is_valid() and too_many_rows(formset):
        # The page the post came from is out of date: show the workspace as it is now.
        form, formset = edit_forms(row)
        form.initial["reason"] = request.POST.get("reason", "")
        return _page(request, row, form, formset, error=MORE_ROWS_THAN_MEMBERS, status=409)
    if not (form.is_valid() and formset.is_valid()):
        return _page(request, row, form, formset, status=400)
    try:
        workspace_update(
            workspace=row,
            actor=request.user,
            version=form.cleaned_data["version"],
            share_categories=form.cleaned_data["share_categories"],
            members=desired_members(row, form, formset),
            reason=form.cleaned_data["reason"],
        )
    except WorkspaceRefused as refusal:
        fresh = get_object_or_404(_workspaces(), pk=workspace_pk)
        if refusal.code in CONFLICT_CODES:
            # The page shows the workspace as it is now; the typed reason is kept.
            form, formset = edit_forms(fresh)
            form.initial["reason"] = request.POST.get("reason", "")
        status = 409 if refusal.code in CONFLICT_CODES else 400
        return _page(request, fresh, form, formset, error=str(refusal), status=status)
    row = get_object_or_404(_workspaces(), pk=workspace_pk)
    done = (
        "kept, pending: the next sync where the store is writes it"
        if row.pending_since
        else ("written to the store")
    )
    messages.success(request, f"Workspace {row.name!r} saved and {done}.")
    return redirect("interop:workspace", workspace_pk=row.pk)


def _page(request, row, form, formset, *, error: str = "", status: int = 200) -> HttpResponse:
    return render(
        request,
        "interop/workspace.html",
        {
            "workspace": row,
            "versions": row.history.order_by("-history_date")[:20],
            "form": form,
            "formset": formset,
            "error": error,
        },
        status=status,
    )
