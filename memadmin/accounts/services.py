"""Write people and their roles."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from .roles import ROLES, ensure_role_groups


@transaction.atomic
def person_create(*, username: str, password: str, role: str, email: str = ""):
    """Create a person with exactly one role; an admin is also a Django superuser."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    user_model = get_user_model()
    if user_model.objects.filter(username=username).exists():
        raise ValueError(f"a person named {username!r} already exists")
    ensure_role_groups()
    user = user_model.objects.create_user(username=username, password=password, email=email)
    person_set_role(user=user, role=role)
    return user


@transaction.atomic
def person_set_role(*, user, role: str) -> None:
    """Give the person exactly this role."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    ensure_role_groups()
    user.groups.remove(*Group.objects.filter(name__in=ROLES))
    user.groups.add(Group.objects.get(name=role))
    user.is_staff = user.is_superuser = role == "admin"
    user.save(update_fields=["is_staff", "is_superuser"])
    if hasattr(user, "_memadmin_role"):
        del user._memadmin_role
