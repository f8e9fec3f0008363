"""The four roles, each including the ones before it: viewer < editor < curator < admin.

A role is a Django group of the same name; a superuser is an admin. Views check roles with
`role_required`; templates read `can.edit`, `can.curate` and `can.admin` from the context
processor, so a page shows only the actions its reader may take.
"""

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.core.exceptions import PermissionDenied

ROLES = ("viewer", "editor", "curator", "admin")
# What a form that shows a person's role says of someone who has none.
NO_ROLE = "none"
ROLE_DESCRIPTIONS = {
    "viewer": "reads everything",
    "editor": "also edits memories and composites",
    "curator": "also edits criteria and packs",
    "admin": "also manages people",
}


def role_of(user: AbstractBaseUser | AnonymousUser) -> str | None:
    """Return the highest role the user holds, or None for someone with no role."""
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return "admin"
    cached = getattr(user, "_memadmin_role", False)
    if cached is not False:
        return cached
    names = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
    role = next((r for r in reversed(ROLES) if r in names), None)
    user._memadmin_role = role
    return role


def has_role(user: AbstractBaseUser | AnonymousUser, role: str) -> bool:
    """Return True if the user holds the given role or a higher one."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    held = role_of(user)
    return held is not None and ROLES.index(held) >= ROLES.index(role)


def role_required(role: str) -> Callable:
    """Refuse the view with 403 unless the signed-in person holds `role` or a higher one."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not has_role(request.user, role):
                raise PermissionDenied(f"This needs the {role} role.")
            return view(request, *args, **kwargs)

        wrapped.required_role = role
        return wrapped

    return decorator


def ensure_role_groups() -> dict[str, Group]:
    """Return the four role groups by name, creating those that do not exist.

    One query when they all exist; another writer creating one at the same time is no error.
    """
    groups = {group.name: group for group in Group.objects.filter(name__in=ROLES)}
    if len(groups) < len(ROLES):
        missing = [Group(name=name) for name in ROLES if name not in groups]
        Group.objects.bulk_create(missing, ignore_conflicts=True)
        groups = {group.name: group for group in Group.objects.filter(name__in=ROLES)}
    return groups
