"""A project's page: its name, where the name came from, its identity, and renaming it."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import role_required
from memadmin.web.hidden_fields import carry
from memadmin.web.htmx_request import HtmxHttpRequest

from .forms import RenameForm
from .models import Project
from .services import project_rename

NO_SHOWN_NAME = (
    "This rename did not say which name it replaces, so it could overwrite a newer one. "
    "Nothing was changed; rename again from the project's page."
)


def _page(request, project: Project, form: RenameForm | None = None, status: int = 200):
    return render(
        request,
        "projects/detail.html",
        {"project": project, "form": form or RenameForm.for_project(project)},
        status=status,
    )


@require_GET
@role_required("viewer")
def project_detail(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Show the project's name, where it came from, its identity and its pages."""
    return _page(request, get_object_or_404(Project, pk=project_pk))


@require_POST
@role_required("editor")
def project_rename_view(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Rename the project; a page showing an older name is refused (409), nothing changed."""
    project = get_object_or_404(Project, pk=project_pk)
    form = RenameForm(request.POST)
    if not form.is_valid():
        return _page(request, project, form, status=400)
    shown = form.cleaned_data["shown_name"]
    if not shown:
        form.add_error(None, NO_SHOWN_NAME)
    else:
        try:
            project_rename(
                project=project,
                name=form.cleaned_data["name"],
                actor=request.user,
                reason=form.cleaned_data["reason"],
                expected_name=shown,
            )
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, f"The project is now called {form.cleaned_data['name']}.")
            return redirect("projects:detail", project_pk=project.pk)
    project.refresh_from_db()
    # Refused over a newer name (409) or for the name itself (400); either way the form now
    # carries the name shown now, so sending it again is a rename of that one.
    status = 409 if project.name != shown else 400
    carry(form, "shown_name", project.name)
    return _page(request, project, form, status=status)
