"""The Structure pages: pick a project, see what of it could be structured better.

The page holds one section per kind of proposal; today one, the long memories worth
fragmenting (each a link to the fragment tool, `fragment_views`).
"""

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.core.fragments import LONG_MEMORY_CHARACTERS
from memadmin.projects.models import Project
from memadmin.web.addresses import address
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page
from memadmin.web.pagination import pager, query_pages

from .selectors import fragment_candidates, structure_projects

CANDIDATES_PER_PAGE = 25


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """List the projects, each linking to its Structure page."""
    return render(
        request,
        "structure/index.html",
        {"projects": structure_projects(), "long_characters": LONG_MEMORY_CHARACTERS},
    )


@require_GET
@role_required("viewer")
def structure(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Show a project's fragment candidates, longest first; an htmx page of them (the
    pager's links) gets the section alone."""
    project = get_object_or_404(Project, pk=project_pk)
    candidates = fragment_candidates(project)
    page = Paginator(candidates, CANDIDATES_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "project": project,
        "candidates": page,
        "candidate_count": len(candidates),
        "candidates_pager": pager(
            page,
            query_pages(request.GET, request.path, anchor="fragment-candidates"),
            fragment=query_pages(request.GET, request.path),
            label="Pages of fragment candidates",
            numbers=True,
            target="#fragment-candidates",
        ),
        "long_characters": LONG_MEMORY_CHARACTERS,
        # Every long memory, structured or not, in the list sorted by length.
        "long_list_url": address(
            reverse("memories:list"),
            project=project.pk,
            min_length=LONG_MEMORY_CHARACTERS,
            sort="-length",
        ),
    }
    template_name = partial_or_page(request, "structure/page.html", "fragment-candidates")
    return render(request, template_name, context)
