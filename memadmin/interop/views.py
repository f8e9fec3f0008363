"""The interop page: stores synced from, their sync runs, sessions against the prompt surface."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import role_required
from memadmin.htmx_request import HtmxHttpRequest

from . import selectors
from .models import UpstreamStore
from .sync_services import SyncRefused, context_db_sync


def _page(request: HtmxHttpRequest, *, template_name: str = "interop/index.html", **extra):
    context = {
        "stores": selectors.store_list(),
        "runs": selectors.recent_runs(),
        "surfaces": selectors.sessions_by_surface(),
        **extra,
    }
    return render(request, template_name, context)


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """Show the stores, the recent sync runs and the sessions per prompt surface."""
    return _page(request)


@require_POST
@role_required("editor")
def store_sync(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Sync a known store again from the path it was last read at; the actor is "import".

    Without JavaScript the page is served again after a redirect; with htmx only the stores
    and runs section comes back, with the new run on top.
    """
    try:
        store = selectors.store_detail(pk)
    except UpstreamStore.DoesNotExist as missing:
        raise Http404("No such store.") from missing
    reason = f"sync started by {request.user.get_username()} on the interop page"
    outcome = {}
    try:
        run = context_db_sync(path=store.path, reason=reason)
    except SyncRefused as refused:
        outcome = {"refused": refused.messages[:20]}
        messages.error(request, f"The sync of {store.path} was refused; nothing was imported.")
    else:
        messages.success(
            request,
            f"Synced {store.path}: {run.new} new, {run.changed} changed, "
            f"{run.unchanged} unchanged, {run.gone} gone, {run.flagged} flagged.",
        )
    if request.htmx:
        return _page(request, template_name="interop/index.html#sync-section", **outcome)
    return redirect("interop:index")
