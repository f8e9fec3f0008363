"""The stale-header queue: headers whose details changed since they were last synced."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import role_required
from memadmin.htmx_request import HtmxHttpRequest
from memadmin.memories.models import Memory, Project
from memadmin.memories.selectors import project_list

from .stale_selectors import stale_header_count, stale_headers, stale_order
from .stale_services import header_mark_synced

STALE_PER_PAGE = 25


def _project(request: HtmxHttpRequest) -> Project | None:
    value = request.GET.get("project", "")
    return Project.objects.filter(pk=int(value)).first() if value.isdigit() else None


@require_GET
@role_required("viewer")
def stale_queue(request: HtmxHttpRequest) -> HttpResponse:
    """List the stale headers, each with what changed in its details since its last sync."""
    project = _project(request)
    template_name = "headermap/stale.html"
    if request.htmx and not request.htmx.history_restore_request:
        template_name += "#stale-queue"
    return render(request, template_name, _queue_context(request, project))


def _queue_context(request: HtmxHttpRequest, project: Project | None) -> dict:
    """Return a page of the queue: STALE_PER_PAGE headers, each with what changed."""
    page = Paginator(stale_order(project), STALE_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return {
        "headers": stale_headers(project, heads=list(page.object_list)),
        "page": page,
        "query": query.urlencode(),
        "project": project,
        "projects": project_list(),
    }


@require_POST
@role_required("editor")
def stale_mark_synced(request: HtmxHttpRequest, header_pk: int) -> HttpResponse:
    """Mark a header synced; an htmx request gets it removed from the queue in place."""
    header = get_object_or_404(Memory, pk=header_pk)
    try:
        header_mark_synced(
            header=header, actor=request.user, reason=request.POST.get("reason", "").strip()
        )
    except ValidationError as error:
        if request.htmx:
            return render(
                request,
                "headermap/includes/sync_refused.html",
                {"header": header, "messages_list": error.messages},
            )
        # Without JavaScript the queue comes back with the refusal among its messages.
        for message in error.messages:
            messages.error(request, message)
        context = _queue_context(request, None)
        return render(request, "headermap/stale.html", context, status=400)
    if request.htmx:
        return render(
            request,
            "headermap/includes/synced.html",
            {"header": header, "stale_count": stale_header_count()},
        )
    messages.success(request, f"#{header.display_id} is marked synced.")
    return redirect("headermap:stale")
