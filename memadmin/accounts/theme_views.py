"""Choosing the colour theme: a plain POST form in the top bar, and an htmx post from it."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from memadmin.web.htmx_request import HtmxHttpRequest

from .forms import ThemeForm
from .roles import role_required
from .themes import remember_theme


@require_POST
@role_required("viewer")
def theme_set(request: HtmxHttpRequest) -> HttpResponse:
    """Remember the theme chosen, then go back to the page it was chosen on.

    htmx (theme.js has already repainted the page) gets 204 and nothing to swap. A theme that
    is not one of the three changes nothing and says so.
    """
    form = ThemeForm(request.POST)
    valid = form.is_valid()
    back = form.cleaned_data.get("next") or "/"
    if request.htmx:
        response = HttpResponse(status=204 if valid else 400)
    else:
        response = redirect(back)
        if not valid:
            messages.error(request, " ".join(form.errors.get("theme", ["Choose a theme."])))
    if valid:
        remember_theme(response, form.cleaned_data["theme"], secure=request.is_secure())
    return response
