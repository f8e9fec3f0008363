"""Pages of curation: the projects, a project's near-duplicates, theme suggestions and health.

The near-duplicates and suggestions come from the project's kept analysis. When it is not
current, the page asks for a new one (in the background) and says it is computing; with
htmx the section asks again every few seconds, without JavaScript a link reloads it.
"""

from django.core.paginator import Paginator
from django.http import QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import has_role, role_required
from memadmin.projects.models import Project
from memadmin.web.hidden_fields import BackForm
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page
from memadmin.web.pagination import pager, query_pages

from .analysis import is_current
from .forms import ThresholdForm
from .health import KINDS, health_report
from .models import Analysis
from .selectors import (
    Thresholds,
    alike_pairs,
    cluster_views,
    duplicate_clusters,
    pair_views,
    theme_suggestions,
)
from .tasks import analysis_request

CLUSTERS_PER_PAGE = 25
ALIKE_SHOWN = 25  # variant pairs shown below the clusters, the most similar first
SUGGESTIONS_PER_PAGE = 25
ENTRIES_PER_PAGE = 100


def _project(project_pk: int) -> Project:
    return get_object_or_404(Project.objects.select_related("pack"), pk=project_pk)


def _analysis_context(project: Project) -> dict:
    """Return the kept analysis, asking for a new one when it is not current."""
    analysis = analysis_request(project)
    return {
        "project": project,
        "analysis": analysis,
        "computing": not is_current(analysis, project),
        "failed": analysis.state == Analysis.State.FAILED,
    }


def _section(request: HtmxHttpRequest, template_name: str, section: str) -> str:
    return partial_or_page(request, template_name, section)


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest):
    """List the projects, each with its curation pages and its kept analysis."""
    projects = Project.objects.order_by("name")
    analyses = {a.project_id: a for a in Analysis.objects.filter(project__in=projects)}
    rows = [(project, analyses.get(project.pk)) for project in projects]
    return render(request, "curation/index.html", {"rows": rows})


@require_GET
@role_required("viewer")
def duplicates(request: HtmxHttpRequest, project_pk: int):
    """Show the project's near-duplicate clusters at the thresholds asked for."""
    project = _project(project_pk)
    context = _analysis_context(project)
    form = ThresholdForm(request.GET or None)
    thresholds = Thresholds(**form.thresholds())
    clusters = [] if context["computing"] else duplicate_clusters(context["analysis"], thresholds)
    alike = [] if context["computing"] else alike_pairs(context["analysis"], thresholds)
    page = Paginator(clusters, CLUSTERS_PER_PAGE).get_page(request.GET.get("page"))
    context.update(
        {
            "form": form,
            "thresholds": thresholds,
            "page": page,
            "pager": pager(page, query_pages(request.GET, request.path), label="Pages of clusters"),
            "clusters": cluster_views(page.object_list, first_number=page.start_index()),
            "total": len(clusters),
            "alike": pair_views(alike[:ALIKE_SHOWN]),
            "alike_total": len(alike),
            "next": request.get_full_path(),
        }
    )
    template_name = _section(request, "curation/duplicates.html", "analysis-section")
    return render(request, template_name, context)


@require_POST
@role_required("editor")
def refresh(request: HtmxHttpRequest, project_pk: int):
    """Ask for the project's analysis again (after a failure, or to pick up new vectors)."""
    project = _project(project_pk)
    Analysis.objects.filter(project=project).update(fingerprint="")
    analysis_request(project, retry=True)
    target = BackForm(request.POST).target()
    return redirect(target or reverse("curation:duplicates", args=[project.pk]))


@require_GET
@role_required("viewer")
def suggestions(request: HtmxHttpRequest, project_pk: int):
    """Show groups of related memories that no composite holds together yet."""
    project = _project(project_pk)
    context = _analysis_context(project)
    found = [] if context["computing"] else theme_suggestions(context["analysis"], project)
    page = Paginator(found, SUGGESTIONS_PER_PAGE).get_page(request.GET.get("page"))
    context.update(
        {
            "page": page,
            "pager": pager(
                page, query_pages(request.GET, request.path), label="Pages of suggestions"
            ),
            "total": len(found),
        }
    )
    template_name = _section(request, "curation/suggestions.html", "analysis-section")
    return render(request, template_name, context)


@require_GET
@role_required("viewer")
def health(request: HtmxHttpRequest, project_pk: int):
    """Show the project's health queue, filtered by kind if asked."""
    project = _project(project_pk)
    analysis = analysis_request(project)
    report = health_report(project, analysis)
    kind = request.GET.get("kind", "")
    entries = [e for e in report.entries if e.kind == kind] if kind in KINDS else report.entries
    page = Paginator(entries, ENTRIES_PER_PAGE).get_page(request.GET.get("page"))
    # Each row's action only for those whose role allows it; the others get its view.
    rows = [(entry, has_role(request.user, entry.action_role)) for entry in page.object_list]
    query = QueryDict(mutable=True)
    if kind in KINDS:
        query["kind"] = kind
    context = {
        "project": project,
        "report": report,
        "counts": [(name, label, report.counts()[name]) for name, label in KINDS.items()],
        "kind": kind if kind in KINDS else "",
        "page": page,
        "rows": rows,
        "pager": pager(page, query_pages(query, request.path), label="Pages of the queue"),
        "computing": report.computing,
    }
    return render(request, "curation/health.html", context)
