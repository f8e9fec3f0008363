"""Expose what the signed-in person may do, so templates show only permitted actions."""

from django.http import HttpRequest

from .forms import ThemeForm
from .roles import has_role, role_of
from .themes import theme_of


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


def theme(request: HttpRequest) -> dict:
    """Return the `theme` this browser chose (system, light or dark) and the `theme_form`
    that changes it, going back to the page shown."""
    chosen = theme_of(request)
    return {
        "theme": chosen,
        "theme_form": ThemeForm(initial={"theme": chosen, "next": request.get_full_path()}),
    }
