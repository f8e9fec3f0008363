"""Resolve a sync conflict from the memory's page or the Import/export page."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from memadmin.accounts.roles import role_required
from memadmin.htmx_request import HtmxHttpRequest

from .conflict_services import CHOICES, conflict_resolve
from .models import SyncConflict


@require_POST
@role_required("curator")
def conflict_resolve_view(request: HtmxHttpRequest, pk: int):
    """Keep one side of a conflict, or save a merged text; then go back where the form was."""
    conflict = get_object_or_404(SyncConflict.objects.select_related("memory"), pk=pk)
    memory_pk = conflict.memory_id
    keep = request.POST.get("keep", "")
    try:
        conflict_resolve(
            conflict=conflict,
            keep=keep,
            content=request.POST.get("content", ""),
            reason=request.POST.get("reason", "")[:500],
            actor=request.user,
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, f"Conflict resolved: {CHOICES[keep]}.")
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        return redirect("memories:detail", pk=memory_pk)
    return redirect(target)
