"""Write people and their roles; each change is recorded in the audit trail."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record

from .roles import NO_ROLE, ROLES, ensure_role_groups, role_of


def _validate_role(role: str) -> None:
    if role not in ROLES:
        raise ValidationError({"role": f"Unknown role {role!r}; roles are {', '.join(ROLES)}."})


def admin_count() -> int:
    """Return how many active people hold the admin role (superusers included)."""
    people = get_user_model().objects.filter(is_active=True)
    return (
        (people.filter(is_superuser=True) | people.filter(groups__name="admin")).distinct().count()
    )


@transaction.atomic
def person_create(
    *,
    username: str,
    password: str | None,
    role: str,
    email: str = "",
    actor="system",
    reason: str = "",
):
    """Create a person with exactly one role; an admin is also a Django superuser.

    The password must pass the configured validators (ValidationError by field otherwise);
    None makes a person nobody can log in as (an author of the demo's history) until an admin
    sets a password.
    """
    _validate_role(role)
    user_model = get_user_model()
    username = username.strip()
    if not username:
        raise ValidationError({"username": "A person needs a username."})
    if user_model.objects.filter(username=username).exists():
        raise ValidationError({"username": f"A person named {username!r} already exists."})
    candidate = user_model(username=username, email=email)
    try:
        if password is not None:
            validate_password(password, candidate)
    except ValidationError as error:
        raise ValidationError({"password": error.messages}) from error
    groups = ensure_role_groups()
    with acting(actor=actor, reason=reason):
        admin = role == "admin"
        user = user_model.objects.create_user(
            username=username, password=password, email=email, is_staff=admin, is_superuser=admin
        )
        user.groups.add(groups[role])
        audit_record(
            action="person_created",
            target=user,
            object_type="person",
            changes={"role": role},
        )
    return user


class StaleRole(ValidationError):
    """The person's role changed since the page that asks for this change was loaded."""

    def __init__(self, user, now: str | None):
        self.now = now or NO_ROLE
        super().__init__(
            {
                "role": (
                    f"Someone else changed {user.get_username()}'s role since this page was "
                    f"loaded: it is now {now or 'no role'}. Nothing was changed; choose again."
                )
            },
            code="stale",
        )


@transaction.atomic
def person_set_role(
    *, user, role: str, actor="system", reason: str = "", expected_role: str | None = None
) -> None:
    """Give the person exactly this role; the last admin cannot be made anything else.

    If `expected_role` (a role, or NO_ROLE) is given and the person's role is another one
    now, StaleRole is raised and nothing is written.
    """
    _validate_role(role)
    groups = ensure_role_groups()
    # Role changes queue on the admin group's row, so two demotions cannot both pass the
    # last-admin check (SQLite's IMMEDIATE transactions already serialise writers).
    Group.objects.select_for_update().get(name="admin")
    user = get_user_model().objects.get(pk=user.pk)  # the role as it is now, under the lock
    old = role_of(user)
    if expected_role is not None and expected_role != (old or NO_ROLE):
        raise StaleRole(user, old)
    if old == role:
        return
    if old == "admin" and admin_count() <= 1:
        raise ValidationError(
            {"role": f"{user.get_username()} is the last admin; make someone else admin first."}
        )
    with acting(actor=actor, reason=reason):
        _apply_role(user, role, groups)
        audit_record(
            action="role_changed",
            target=user,
            object_type="person",
            changes={"role": [old, role]},
        )


def _apply_role(user, role: str, groups: dict) -> None:
    user.groups.remove(*groups.values())
    user.groups.add(groups[role])
    user.is_staff = user.is_superuser = role == "admin"
    user.save(update_fields=["is_staff", "is_superuser"])
    if hasattr(user, "_memadmin_role"):
        del user._memadmin_role
