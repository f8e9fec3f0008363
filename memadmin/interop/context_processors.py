"""Name, on every page, the stores memadmin serves read-only because they are newer than it."""

from django.http import HttpRequest

from .write_through.newer_stores import newer_stores


def newer_stores_notice(request: HttpRequest) -> dict:
    """Return ``newer_stores``: (path, reason) of each store too new to write (no query)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"newer_stores": []}
    return {"newer_stores": newer_stores()}
