"""Pages of the composites area."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.htmx_request import HtmxHttpRequest


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """Show the composites overview."""
    return render(request, "composites/index.html", {})
