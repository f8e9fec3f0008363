"""Read people and their roles."""

from django.contrib.auth import get_user_model

from .roles import ROLES


def people() -> list:
    """Return every person, alphabetically, each with its highest role as `role`."""
    users = list(get_user_model().objects.prefetch_related("groups").order_by("username"))
    for user in users:
        names = {group.name for group in user.groups.all()}
        held = [role for role in ROLES if role in names]
        user.role = "admin" if user.is_superuser else (held[-1] if held else None)
    return users
