"""The stale-header queue: headers whose details changed since they were last synced."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import role_required
from memadmin.memories.models import Memory
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page
from memadmin.web.pagination import pager, query_pages

from .drafts import header_drafts
from .forms import MarkSyncedForm, StaleFilterForm
from .stale_selectors import stale_header, stale_header_count, stale_headers, stale_order
from .stale_services import StaleReview, header_accept_draft, header_mark_synced

STALE_PER_PAGE = 25


@require_GET
@role_required("viewer")
def stale_queue(request: HtmxHttpRequest) -> HttpResponse:
    """List the stale headers, each with what changed in its details since its last sync."""
    template_name = partial_or_page(request, "headermap/stale.html", "stale-queue")
    return render(request, template_name, _queue_context(request, StaleFilterForm(request.GET)))


def _queue_context(request: HtmxHttpRequest, filter_form: StaleFilterForm) -> dict:
    """Return a page of the queue: STALE_PER_PAGE headers, each with what changed."""
    project = filter_form.chosen_project()
    page = Paginator(stale_order(project), STALE_PER_PAGE).get_page(request.GET.get("page"))
    headers = stale_headers(project, heads=list(page.object_list))
    return {
        "headers": headers,
        "drafts": header_drafts([entry.header for entry in headers]),
        "page": page,
        "pager": pager(
            page,
            # The queue's address, not the request's: a refused "mark synced" shows it too.
            query_pages(request.GET, reverse("headermap:stale")),
            label="Pages of the queue",
            target="#stale-queue",
        ),
        "project": project,
        "filter_form": filter_form,
    }


@require_POST
@role_required("editor")
def stale_mark_synced(request: HtmxHttpRequest, header_pk: int) -> HttpResponse:
    """Mark a header synced; an htmx request gets it removed from the queue in place."""
    return _settle(request, header_pk, header_mark_synced, "is marked synced")


@require_POST
@role_required("editor")
def stale_accept_draft(request: HtmxHttpRequest, header_pk: int) -> HttpResponse:
    """Write the header's draft and mark it synced; with htmx, in place, as marking does."""
    return _settle(request, header_pk, header_accept_draft, "takes its draft and is marked synced")


def _settle(request: HtmxHttpRequest, header_pk: int, service, done: str) -> HttpResponse:
    """Carry out a queue card's action (`service`); answer as the card's form expects."""
    header = get_object_or_404(Memory, pk=header_pk)
    form = MarkSyncedForm(request.POST)
    reason = request.POST.get("reason", "").strip()
    try:
        if not form.is_valid():
            raise form.refusal()
        service(
            header=header,
            actor=request.user,
            reason=form.cleaned_data["reason"],
            expected_version=form.cleaned_data["version"],
        )
    except ValidationError as error:
        stale = isinstance(error, StaleReview)
        current = stale_header(header) if stale else None
        if request.htmx and current is not None:
            # htmx swaps only 2xx answers: the card comes back as it is now, with why.
            context = {
                "entry": current,
                "drafts": header_drafts([current.header]),
                "refusals": error.messages,
                "kept_note": {"header": header.pk, "reason": reason},
            }
            return render(request, "headermap/stale.html#stale-card", context)
        if request.htmx:
            return render(
                request,
                "headermap/includes/sync_refused.html",
                {"header": header, "messages_list": error.messages},
            )
        # Without JavaScript the queue comes back with the refusal among its messages, as it
        # is now, the note typed kept on the header's form.
        for message in error.messages:
            messages.error(request, message)
        context = _queue_context(request, StaleFilterForm())
        context["kept_note"] = {"header": header.pk, "reason": reason}
        return render(request, "headermap/stale.html", context, status=409 if stale else 400)
    if request.htmx:
        return render(
            request,
            "headermap/includes/synced.html",
            {"header": header, "stale_count": stale_header_count()},
        )
    messages.success(request, f"#{header.display_id} {done}.")
    return redirect("headermap:stale")
