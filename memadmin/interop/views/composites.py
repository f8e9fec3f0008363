"""Publish composites to a store, stop, or drop the tables, from the Import/export page."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from memadmin.accounts.roles import role_required
from memadmin.web.htmx_request import HtmxHttpRequest

from ..composites.publish import composites_publish, composites_unpublish
from ..composites.tables import composite_tables_drop
from ..forms import CompositeTablesDropForm
from ..models import UpstreamStore
from .index import index_page


@require_POST
@role_required("curator")
def store_composites_publish(request: HtmxHttpRequest, pk: int):
    """Turn publishing of composites on for the store (creating its two tables)."""
    upstream = get_object_or_404(UpstreamStore, pk=pk)
    try:
        created, conflicts = composites_publish(upstream=upstream, actor=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        made = f" Created {', '.join(created)}." if created else ""
        messages.success(request, f"Composites are now published to {upstream.path}.{made}")
        for conflict in conflicts:
            messages.warning(request, f"Store composite {conflict['row']}: {conflict['problem']}.")
    return redirect("interop:index")


@require_POST
@role_required("curator")
def store_composites_unpublish(request: HtmxHttpRequest, pk: int):
    """Stop writing composites to the store; its tables stay."""
    upstream = get_object_or_404(UpstreamStore, pk=pk)
    composites_unpublish(upstream=upstream, actor=request.user)
    messages.success(
        request, f"Composites are no longer written to {upstream.path}; its tables stay."
    )
    return redirect("interop:index")


@require_POST
@role_required("curator")
def store_composites_drop(request: HtmxHttpRequest, pk: int):
    """Back the store up, then drop its composite tables (typed confirmation).

    Without the word the page comes back with the error at its box, nothing dropped.
    """
    upstream = get_object_or_404(UpstreamStore, pk=pk)
    form = CompositeTablesDropForm(request.POST, store=upstream)
    if not form.is_valid():
        # Said at the top too: the box is far down the page the browser opens at its top.
        messages.error(
            request, f"Nothing was dropped from {upstream.path}: see its drop box below."
        )
        response = index_page(request, drop_form=form)
        response.status_code = 400
        return response
    try:
        backup = composite_tables_drop(
            upstream=upstream, actor=request.user, confirmation=form.cleaned_data["confirm"]
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(
            request, f"Composite tables dropped from {upstream.path}; backup {backup}."
        )
    return redirect("interop:index")
