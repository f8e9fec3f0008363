"""Error pages in the dashboard's layout: what happened, and where to go from here.

Django calls these for 403, 404 and 500 (see `handler403` and friends in `memadmin.urls`). A
403 from `role_required` carries the sentence naming the role the page needs; a 404 carries
what was not found. A 500 renders the same layout when it can, and plain text when even that
fails (the database may be what broke).
"""

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.urls import Resolver404

from memadmin.accounts.roles import ROLE_DESCRIPTIONS, role_of

logger = logging.getLogger(__name__)


def _message(exception: Exception | None) -> str:
    """Return the exception's own sentence when it has one that is meant for people."""
    if exception is None or not exception.args:
        return ""
    message = exception.args[0]
    return message if isinstance(message, str) else ""


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Say which role the page needs and which one the person holds."""
    context = {
        "message": _message(exception) or "Your role does not allow this page.",
        "held": role_of(request.user) if request.user.is_authenticated else None,
        "roles": ROLE_DESCRIPTIONS.items(),
    }
    return render(request, "errors/403.html", context, status=403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Say what was not found and offer the overview and the lists."""
    # An unknown address carries the URL patterns tried, which are not for people.
    message = "" if isinstance(exception, Resolver404) else _message(exception)
    if getattr(request, "htmx", False):  # set by django-htmx's middleware, as for any view
        # A piece of a page asked for by htmx gets a piece back, not a second layout.
        return render(request, "errors/fragment.html", {"message": message}, status=404)
    return render(request, "errors/404.html", {"message": message}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """Apologise in the layout; fall back to plain text if rendering fails too."""
    try:
        return render(request, "errors/500.html", status=500)
    except Exception:
        logger.exception("The error page itself could not be rendered")
        return HttpResponseServerError(
            "memadmin hit an error and could not show its error page. Try again, or go to /.",
            content_type="text/plain",
        )
