"""The audit log page and its exports. Versions, compare and revert are in `version_views`."""

from django.core.paginator import Paginator
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page
from memadmin.web.pagination import pager, query_pages

from . import selectors
from .export import csv_lines, json_chunks
from .forms import EventFilterForm

PAGE_SIZE = 50


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """Show the audit log, filtered and paginated; an htmx request gets only the log section."""
    form = EventFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        events = selectors.event_list().none()
    else:
        events = selectors.event_list(form.filters())
    page = Paginator(events, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    template_name = partial_or_page(request, "audit/index.html", "log-section")
    return render(
        request,
        template_name,
        {
            "form": form,
            "page": page,
            "query": query,  # the filters, for the export links
            "pager": pager(
                page,
                query_pages(query, request.path),
                label="Pages of the log",
                previous="Newer",
                next="Older",
            ),
        },
        status=400 if form.errors else 200,
    )


def _export_events(request: HtmxHttpRequest):
    form = EventFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return form, None
    return form, selectors.event_list(form.filters()).iterator(chunk_size=500)


def _filename(extension: str) -> str:
    return f"memadmin-audit-{timezone.now():%Y%m%d-%H%M%S}.{extension}"


@require_GET
@role_required("viewer")
def export_csv(request: HtmxHttpRequest) -> HttpResponse:
    """Download the filtered audit log as CSV."""
    form, events = _export_events(request)
    if events is None:
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain")
    response = StreamingHttpResponse(csv_lines(events), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_filename("csv")}"'
    return response


@require_GET
@role_required("viewer")
def export_json(request: HtmxHttpRequest) -> HttpResponse:
    """Download the filtered audit log as JSON."""
    form, events = _export_events(request)
    if events is None:
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain")
    filters = {name: request.GET[name] for name in form.fields if request.GET.get(name)}
    response = StreamingHttpResponse(
        json_chunks(events, filters=filters), content_type="application/json"
    )
    response["Content-Disposition"] = f'attachment; filename="{_filename("json")}"'
    return response
