"""The overview at `/`: every project at a glance, each figure a link to the list behind it.

A project's injection coverage needs its ledger prepared, seconds for a large project in a
new process: the page shows it when this process keeps the project prepared, and otherwise
at once without it. `?coverage=<project>` counts it: with htmx (the section asks on load)
the answer is that section alone, without JavaScript the whole page with it counted.
"""

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import has_role
from memadmin.core.clock import now_ms
from memadmin.core.diagrams.counts import Bar, counts_svg
from memadmin.core.numbers import parse_id
from memadmin.interop.worker.freshness import stores_freshness
from memadmin.projects.models import Project
from memadmin.web.addresses import address
from memadmin.web.htmx_request import HtmxHttpRequest, wants_fragment

from .coverage import project_coverage
from .selectors import EXPIRING_DAYS, ProjectOverview, project_overviews

TEMPLATE = "overview/index.html"


@require_GET
def overview(request: HtmxHttpRequest) -> HttpResponse:
    """Show each project's totals, injection use, stale headers, flags, expiries and changes.

    Any signed-in person may open `/`; someone without a role is told to ask for one.
    `?coverage=<project>` counts that project's coverage: its section alone for htmx, the
    page with it counted otherwise (404 for a project that does not exist).
    """
    if not has_role(request.user, "viewer"):
        return render(request, TEMPLATE, {"no_role": True})
    counted = _counted_project(request)
    if counted is not None and wants_fragment(request):
        coverage = project_coverage(counted, now=now_ms())
        context = {"project": counted, "coverage": coverage}
        return render(request, f"{TEMPLATE}#coverage-section", context)
    # Each card: the project's figures, its chart, and the memory list's filter on the
    # project, which the card's links extend ({% querystring %}).
    cards = [
        (overview, _chart(overview), {"project": overview.project.pk})
        for overview in project_overviews(counted=[counted.pk] if counted else ())
    ]
    context = {"cards": cards, "expiring_days": EXPIRING_DAYS, "freshness": stores_freshness()}
    return render(request, TEMPLATE, context)


def _counted_project(request: HtmxHttpRequest) -> Project | None:
    """Return the project `?coverage=` names, None without one; raise Http404 for a bad one."""
    if "coverage" not in request.GET:
        return None
    pk = parse_id(request.GET["coverage"])
    if pk is None:
        raise Http404("No such project.")
    return get_object_or_404(Project, pk=pk)


def _chart(overview: ProjectOverview) -> str:
    memory_list = reverse("memories:list")
    bars = [
        Bar(name, count, address(memory_list, project=overview.project.pk, category=name))
        for name, count in overview.by_category
    ]
    summary = f"Live memories of {overview.project.name} by category"
    # The SVG is built from escaped parts (memadmin.core.diagrams): trust is decided there.
    return counts_svg(bars, summary=summary)
