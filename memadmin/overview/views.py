"""The overview at `/`: every project at a glance, each figure a link to the list behind it."""

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import has_role
from memadmin.core.diagrams.counts import Bar, counts_svg
from memadmin.interop.worker.freshness import stores_freshness
from memadmin.web.addresses import address
from memadmin.web.htmx_request import HtmxHttpRequest

from .selectors import EXPIRING_DAYS, ProjectOverview, project_overviews


@require_GET
def overview(request: HtmxHttpRequest) -> HttpResponse:
    """Show each project's totals, injection use, stale headers, flags, expiries and changes.

    Any signed-in person may open `/`; someone without a role is told to ask for one.
    """
    if not has_role(request.user, "viewer"):
        return render(request, "overview/index.html", {"no_role": True})
    # Each card: the project's figures, its chart, and the memory list's filter on the
    # project, which the card's links extend ({% querystring %}).
    cards = [
        (overview, _chart(overview), {"project": overview.project.pk})
        for overview in project_overviews()
    ]
    context = {"cards": cards, "expiring_days": EXPIRING_DAYS, "freshness": stores_freshness()}
    return render(request, "overview/index.html", context)


def _chart(overview: ProjectOverview) -> str:
    memory_list = reverse("memories:list")
    bars = [
        Bar(name, count, address(memory_list, project=overview.project.pk, category=name))
        for name, count in overview.by_category
    ]
    summary = f"Live memories of {overview.project.name} by category"
    # The SVG is built from escaped parts (memadmin.core.diagrams): trust is decided there.
    return counts_svg(bars, summary=summary)
