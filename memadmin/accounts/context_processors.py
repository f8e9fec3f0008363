"""Expose what the signed-in person may do, so templates show only permitted actions."""

from django.http import HttpRequest

from .roles import has_role, role_of


def roles(request: HttpRequest) -> dict:
    """Return `role` and `can` (view, edit, curate, admin) for the current person."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"role": None, "can": {}}
    return {
        "role": role_of(user),
        "can": {
            "view": has_role(user, "viewer"),
            "edit": has_role(user, "editor"),
            "curate": has_role(user, "curator"),
            "admin": has_role(user, "admin"),
        },
    }
