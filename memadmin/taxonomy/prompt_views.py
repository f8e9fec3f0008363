"""Pages of the prompt surface: the three assembled texts, and the surface hash's history."""

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.core.prompts import CURATE, HISTORIAN, TOOL_DESCRIPTION
from memadmin.web.htmx_request import HtmxHttpRequest

from .selectors import prompt_texts, surface_history, surface_state
from .views import project_or_404

SITES = {
    "historian": (HISTORIAN, "Historian: facts instructions and output contract"),
    "curate": (CURATE, "Dreamer: curate taxonomy and legacy mapping"),
    "tool": (TOOL_DESCRIPTION, "ctx_memory tool description"),
}


@require_GET
@role_required("viewer")
def prompt_preview(request: HtmxHttpRequest, project_pk: int, site: str) -> HttpResponse:
    """Show one of the three texts assembled from the project's criteria, with a copy button."""
    if site not in SITES:
        raise Http404("No such prompt site.")
    project = project_or_404(project_pk)
    key, title = SITES[site]
    return render(
        request,
        "taxonomy/prompt.html",
        {
            "project": project,
            "site": site,
            "title": title,
            "sites": [(slug, label) for slug, (_, label) in SITES.items()],
            "text": prompt_texts(project)[key],
            "surface": surface_state(project),
        },
    )


@require_GET
@role_required("viewer")
def surface_hash_history(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """List every value the project's surface hash took: what changed it, who, and when."""
    project = project_or_404(project_pk)
    return render(
        request,
        "taxonomy/surface.html",
        {
            "project": project,
            "surface": surface_state(project),
            "records": surface_history(project).select_related("actor_user")[:500],
        },
    )
