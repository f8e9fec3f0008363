"""The Dreamer runs page: what magic-context's dreamer did in each run for one project."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.projects.models import Project
from memadmin.web.htmx_request import HtmxHttpRequest

from ..store_reads.dream_runs import project_dream_runs


@require_GET
@role_required("viewer")
def dream_runs(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """List the project's last dreamer runs, read from its store: tasks, and memories changed."""
    project = get_object_or_404(Project, pk=project_pk)
    return render(
        request,
        "interop/dream_runs.html",
        {"project": project, "shown": project_dream_runs(project)},
    )
