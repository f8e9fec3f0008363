"""The request type every view takes: Django's request with django-htmx's `htmx` details."""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def wants_fragment(request: HtmxHttpRequest) -> bool:
    """Return True for an htmx request that swaps a fragment in (not a history restore)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def partial_or_page(request: HtmxHttpRequest, template_name: str, partial: str) -> str:
    """Return `template_name#partial` when htmx asks for a fragment, else the whole page."""
    return f"{template_name}#{partial}" if wants_fragment(request) else template_name
