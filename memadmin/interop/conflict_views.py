"""Resolve a sync conflict (a memory's, or a composite's) from its page or Import/export."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from memadmin.accounts.roles import role_required
from memadmin.composites.models import Composite
from memadmin.htmx_request import HtmxHttpRequest

from .composite_conflict_services import CHOICES as COMPOSITE_CHOICES
from .composite_conflict_services import composite_conflict_resolve
from .conflict_services import CHOICES, conflict_resolve
from .models import SyncConflict
from .views import index_page


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


@require_POST
@role_required("curator")
def composite_conflict_resolve_view(request: HtmxHttpRequest, composite_pk: int):
    """Keep memadmin's composite or the store's row; then go back to the Import/export page."""
    composite = get_object_or_404(Composite, pk=composite_pk)
    keep = request.POST.get("keep", "")
    try:
        kept = composite_conflict_resolve(
            composite=composite,
            keep=keep,
            version=request.POST.get("version", ""),
            reason=request.POST.get("reason", "")[:500],
            actor=request.user,
        )
    except ValidationError as error:
        # A stale form or a store row written since is a conflict: the page as it is now.
        messages.error(request, " ".join(error.messages))
        stale = getattr(error, "code", "") in {"composite_changed", "store_changed"}
        response = index_page(request)
        response.status_code = 409 if stale else 400
        return response
    gone = "" if kept is not None else " The store had deleted it, so it is deleted here."
    messages.success(
        request, f"Composite {composite_pk}: conflict resolved, {COMPOSITE_CHOICES[keep]}.{gone}"
    )
    return redirect("interop:index")
