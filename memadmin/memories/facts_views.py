"""The historian-output checker: every line accounted for, accepted facts written on request.

The taxonomy checks the text; writing the facts as memories makes the page the memories',
served at the criteria area's address (`taxonomy:facts`, `criteria_urls.py`).
"""

from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from memadmin.accounts.roles import has_role, role_required
from memadmin.taxonomy.forms import FactsCheckForm
from memadmin.taxonomy.selectors import accepted_by_category, category_names, facts_check
from memadmin.taxonomy.views import project_or_404
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page

from .facts_services import facts_write


@require_http_methods(["GET", "POST"])
@role_required("viewer")
def facts_checker(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Check pasted historian output; an editor may then write the accepted facts.

    Checking writes nothing, so viewers may check. Writing re-parses the same text on the
    server: what is written is exactly what the report lists.
    """
    project = project_or_404(project_pk)
    form = FactsCheckForm(request.POST or None)
    context = {
        "project": project,
        "form": form,
        "allowed": category_names(project, writable_only=True),
    }
    if request.method == "POST" and form.is_valid():
        report = facts_check(project, form.cleaned_data["text"])
        context |= {
            "report": report,
            "grouped": accepted_by_category(report),
            # Writing posts the text checked again, hidden and without ids (the box has them).
            "write_form": FactsCheckForm(
                initial={"text": form.cleaned_data["text"]}, auto_id=False
            ),
        }
        if request.POST.get("action") == "write":
            if not has_role(request.user, "editor"):
                raise PermissionDenied("Writing memories needs the editor role.")
            context["written"] = facts_write(project=project, report=report, actor=request.user)
    template_name = partial_or_page(request, "taxonomy/facts.html", "report-section")
    status = 400 if form.errors else 200
    return render(request, template_name, context, status=status)
