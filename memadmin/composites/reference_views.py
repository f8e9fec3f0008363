"""Frozen reference sets: freeze a composite, show a snapshot and its drift, export it as JSON."""

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import role_required
from memadmin.web.htmx_request import HtmxHttpRequest

from . import selectors
from .drift import has_drifted
from .forms import FreezeForm
from .models import Composite, ReferenceSet
from .reference_services import reference_set_freeze
from .views import composite_context, load_composite


@require_POST
@role_required("editor")
def freeze(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Freeze the composite into a new snapshot and show it.

    A note the form refuses (too long) freezes nothing: the composite's page comes back, 400,
    with the note as typed and why.
    """
    composite = get_object_or_404(Composite, pk=pk)
    form = FreezeForm(request.POST)
    if not form.is_valid():
        context = composite_context(load_composite(pk), freeze_form=form)
        return render(request, "composites/detail.html", context, status=400)
    note = form.cleaned_data["note"]
    try:
        snapshot = reference_set_freeze(composite=composite, note=note, actor=request.user)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        return redirect("composites:detail", pk=pk)
    messages.success(request, f"Frozen as {snapshot.ref}.")
    return redirect("composites:snapshot", ref=snapshot.ref)


def _snapshot(ref: str) -> ReferenceSet:
    try:
        return selectors.reference_set_detail(ref)
    except ReferenceSet.DoesNotExist as missing:
        raise Http404("No such snapshot.") from missing


@require_GET
@role_required("viewer")
def snapshot_detail(request: HtmxHttpRequest, ref: str) -> HttpResponse:
    """Show a snapshot, where the live composite has drifted from it, and its export."""
    snapshot = _snapshot(ref)
    rows = selectors.reference_set_drift(snapshot)
    export = selectors.reference_set_export(snapshot)
    return render(
        request,
        "composites/snapshot.html",
        {
            "snapshot": snapshot,
            "rows": rows,
            "drifted": has_drifted(rows),
            "export_json": json.dumps(export, indent=2),
        },
    )


@require_GET
@role_required("viewer")
def snapshot_export(request: HtmxHttpRequest, ref: str) -> JsonResponse:
    """Return the snapshot as upstream #449's delegation field, named by `snapshot_ref`."""
    snapshot = _snapshot(ref)
    response = JsonResponse(selectors.reference_set_export(snapshot))
    response["Content-Disposition"] = f'attachment; filename="{snapshot.ref}.json"'
    return response
