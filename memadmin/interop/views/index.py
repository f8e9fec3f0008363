"""The interop page: stores synced from, their sync runs, sessions against the prompt surface."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import role_required
from memadmin.projects.models import Project
from memadmin.web.addresses import address
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page

from .. import selectors
from ..models import UpstreamStore
from ..store_reads.proposals import NO_HUMAN_DECISION, pending_proposals
from ..worker.freshness import stores_freshness
from ..worker.jobs import active_jobs, job_queue, job_reap


def index_page(request: HtmxHttpRequest, *, template_name: str = "interop/index.html", **extra):
    """Render the Import/export page (or its sync section) as it is now."""
    job_reap()
    context = {
        "stores": selectors.store_list(),
        "runs": selectors.recent_runs(),
        "jobs": active_jobs(),
        "freshness": stores_freshness(),
        **extra,
    }
    if not template_name.endswith("#sync-section"):
        context["surfaces"] = selectors.sessions_by_surface()
    return render(request, template_name, context)


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """Show the stores, the syncs under way and recent, and the sessions per prompt surface.

    An htmx request (the sync section polling while a sync runs) gets that section only;
    a history restore gets the whole page.
    """
    return index_page(
        request, template_name=partial_or_page(request, "interop/index.html", "sync-section")
    )


@require_POST
@role_required("editor")
def store_sync(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Queue a sync of a known store from the path it was last read at; return at once.

    The background worker runs it (actor "import"); the page shows its progress and then
    its run. Without JavaScript the page is served again after a redirect (reload it to
    follow the progress); with htmx only the sync section comes back, and polls.
    """
    try:
        store = selectors.store_detail(pk)
    except UpstreamStore.DoesNotExist as missing:
        raise Http404("No such store.") from missing
    reason = f"sync started by {request.user.get_username()} on the interop page"
    job_queue(store=store, actor=request.user, reason=reason)
    messages.info(request, f"Sync of {store.path} queued; the background worker runs it.")
    if request.htmx:
        return index_page(request, template_name="interop/index.html#sync-section")
    return redirect("interop:index")


@require_GET
@role_required("curator")
def proposals(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Show a synced project's queue of the agent's pending proposals (read-only).

    Each with its writer, session, operation, reason and the word diff between the targets
    now and what it would make; the page says why memadmin decides none of them.
    """
    project = get_object_or_404(Project, pk=project_pk)
    return render(
        request,
        "interop/proposals.html",
        {
            "project": project,
            "shown": pending_proposals(project),
            "no_human_decision": NO_HUMAN_DECISION,
            "memories_url": address(reverse("memories:list"), project=project.pk),
        },
    )
