"""The criteria area's overview: a project's categories, with how many memories each holds.

It counts memories, so it is the memories' page, served at the criteria area's address
(`taxonomy:index`, joined in `memadmin/urls.py`).
"""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.taxonomy.forms import ProjectPickForm
from memadmin.taxonomy.selectors import surface_history, surface_state
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page

from .selectors import categories_with_counts


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """Show a project's categories with their markers and the prompt-surface hash."""
    pick = ProjectPickForm(request.GET or None)
    project = pick.cleaned_data["project"] if pick.is_valid() else None
    if project is None:
        project = pick.fields["project"].queryset.select_related("pack").first()
        pick = ProjectPickForm(initial={"project": project})
    context = {"pick": pick, "project": project}
    if project is not None:
        context |= {
            "categories": categories_with_counts(project),
            "surface": surface_state(project),
            "surface_records": list(surface_history(project)[:5]),
        }
    template_name = partial_or_page(request, "taxonomy/index.html", "overview-section")
    return render(request, template_name, context)
