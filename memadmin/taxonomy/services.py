"""Write packs and categories: installing a pack, editing criteria, recording the surface hash.

Category names are never edited here: they belong to the pack (pack upgrades, which move
memories too, are `memadmin/memories/pack_upgrade_services.py`). People edit a category's
criteria as an override of the pack default; every change that alters the assembled prompt
texts records the new surface hash.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting, current
from memadmin.audit.history import history_bulk_create
from memadmin.audit.services import audit_record
from memadmin.core.packs import (
    CriteriaError,
    PackSpec,
    criteria_from_dict,
    criteria_to_dict,
    find_pack,
)
from memadmin.projects.models import Project
from memadmin.projects.store import store_backend

from .criteria_fields import LABELS, field_changes, form_field_of
from .models import Category, Pack, SurfaceHashRecord
from .selectors import current_surface_hash, last_recorded_hash


def pack_spec_to_json(spec: PackSpec) -> dict:
    """Return the pack as plain JSON-ready data (what Pack.spec stores)."""
    return {
        "name": spec.name,
        "version": spec.version,
        "description": spec.description,
        "routing_test": spec.routing_test,
        "categories": [
            {
                "name": c.name,
                "priority": c.priority,
                "ttl_days": c.ttl_days,
                "legacy": c.legacy,
                "maps_to": c.maps_to,
                "criteria": criteria_to_dict(c.criteria),
            }
            for c in spec.categories
        ],
    }


def pack_record(spec: PackSpec) -> Pack:
    """Return the Pack row for this exact file content, creating it if new."""
    pack, _ = Pack.objects.get_or_create(
        name=spec.name,
        digest=spec.digest,
        defaults={
            "version": spec.version,
            "description": spec.description,
            "routing_test": spec.routing_test,
            "spec": pack_spec_to_json(spec),
        },
    )
    return pack


def pack_load(name: str) -> PackSpec:
    """Return the pack file named `name` from the packs directory (PackError if broken)."""
    return find_pack(settings.PACKS_DIR, name)


@transaction.atomic
def pack_install(*, project, spec: PackSpec, actor, reason: str = "") -> Pack:
    """Install a pack into a project that has none (or re-install the same pack: no change).

    Switching a project to another pack, or to another version of its pack, is an upgrade
    (`pack_upgrade`), which plans what happens to existing memories and overrides.
    The project's pack is read again, its row locked: an install that ran since the caller read
    the project (a sync, the `pack` command) is seen, and one running now is waited for.
    """
    project.pack_id = (
        Project.objects.select_for_update()
        .filter(pk=project.pk)
        .values_list("pack_id", flat=True)
        .get()
    )
    if project.pack_id is not None:
        current = project.pack
        if current.name == spec.name and current.digest == spec.digest:
            return current
        raise ValidationError(
            f"{project.name} already runs pack {current.name} {current.version}; "
            f"use `manage.py pack upgrade {spec.name} --project {project.identity}` instead."
        )
    with acting(actor=actor, reason=reason):
        pack = pack_record(spec)
        categories = Category.objects.bulk_create(
            [
                Category(
                    project=project,
                    name=category.name,
                    priority=category.priority,
                    ttl_days=category.ttl_days,
                    legacy=category.legacy,
                    maps_to=category.maps_to or "",
                    default_criteria=criteria_to_dict(category.criteria),
                )
                for category in spec.categories
            ]
        )
        history_bulk_create(Category, categories)
        project.pack = pack
        project.save(update_fields=["pack"])
        event = audit_record(
            action="pack_installed",
            target=pack,
            project=project,
            changes={"pack": spec.name, "version": spec.version, "categories": list(spec.names())},
        )
        surface_hash_note(
            project=project, change=f"pack {spec.name} {spec.version} installed", event=event
        )
    return pack


def surface_hash_note(*, project, change: str, event=None, category: str = ""):
    """Record the project's surface hash if it differs from the last value recorded.

    Call inside the `acting` block of the change that may have altered the prompt texts;
    the record names that change, its actor and its audit event. A change that leaves the
    texts as they were records nothing. Return the new record, or None.
    """
    value = current_surface_hash(project)
    previous = last_recorded_hash(project)
    if value == previous:
        return None
    acting_now = current()
    if acting_now is None:
        raise ValueError("surface_hash_note must run inside an acting block")
    return SurfaceHashRecord.objects.create(
        project=project,
        value=value,
        previous_value=previous,
        change=change[:300],
        category=category,
        actor_label=acting_now.actor.label,
        actor_kind=acting_now.actor.kind,
        actor_user_id=acting_now.actor.user_id,
        audit_event=event,
    )


# --- criteria


class StaleCriteria(ValidationError):
    """Someone saved the category's criteria since this edit began.

    `current` is the category as it is now (their version); `yours` the criteria refused.
    """

    def __init__(self, current: Category, yours: dict):
        self.current = current
        self.yours = yours
        super().__init__(
            "Someone else saved these criteria while you were editing them. "
            "Their version is shown beside yours; nothing was overwritten.",
            code="stale",
        )


def _problem_text(error: CriteriaError) -> str:
    """Return the error as a sentence naming the field as the page labels it."""
    top = form_field_of(error.field)
    label = LABELS.get(top, error.field or "Criteria")
    rest = error.field[len(top) :] if top else ""
    if rest.startswith("["):
        index, _, tail = rest[1:].partition("]")
        if index.isdigit():
            label += f", item {int(index) + 1}"
        rest = tail
    if rest.startswith("."):
        label += f", {rest[1:]}"
    return f"{label} {error.problem}."


def criteria_validate(data: dict) -> dict:
    """Return the criteria as stored (trimmed, in canonical shape), or raise ValidationError.

    The error maps to the criteria field it concerns, so forms show it beside that field.
    """
    try:
        return criteria_to_dict(criteria_from_dict(data))
    except CriteriaError as error:
        field = form_field_of(error.field) or None
        message = _problem_text(error)
        raise ValidationError({field: message} if field else message) from error


def _locked(category: Category) -> Category:
    return (
        Category.objects.select_for_update(of=("self",))
        .select_related("project", "project__pack")
        .get(pk=category.pk)
    )


def _check_revision(current_category: Category, expected_revision: int | None, yours: dict):
    if expected_revision is not None and current_category.revision != expected_revision:
        raise StaleCriteria(current_category, yours)


def _change_summary(name: str, changes: dict, verb: str) -> str:
    labels = ", ".join(LABELS[field].lower() for field in changes) or "nothing"
    return f"{name}: {verb} ({labels})"


def _override_put(
    current_category: Category,
    override: dict | None,
    *,
    expected_revision: int | None,
    actor,
    reason: str,
    action: str,
    verb: str,
) -> Category:
    """Put `override` in force on the locked category (None: the pack default).

    Refuse with StaleCriteria, writing nothing, if someone saved since `expected_revision`.
    Otherwise lower the moved-default flag, bump the revision, and record the audit event
    and the new surface hash (its change named by `verb`) under the actor and reason.
    """
    in_force = current_category.default_criteria if override is None else override
    _check_revision(current_category, expected_revision, in_force)
    changes = field_changes(current_category.effective_criteria, in_force)
    with acting(actor=actor, reason=reason):
        current_category.override_criteria = override
        current_category.default_moved = False
        current_category.previous_default = None
        current_category.revision += 1
        current_category.save()
        event = audit_record(
            action=action,
            target=current_category,
            project=current_category.project,
            category=current_category.name,
            changes=changes,
        )
        surface_hash_note(
            project=current_category.project,
            change=_change_summary(current_category.name, changes, verb),
            event=event,
            category=current_category.name,
        )
        # Last: a store that refuses rolls all of the above back.
        store_backend().write_criteria(project=current_category.project)
    return current_category


@transaction.atomic
def criteria_override_save(
    *,
    category: Category,
    criteria: dict,
    actor,
    expected_revision: int | None = None,
    reason: str = "",
    action: str | None = None,
) -> Category:
    """Save people's criteria for a category, overriding the pack default.

    The criteria are held to the pack's own rules (ValidationError by field otherwise).
    Criteria equal to what is in force change nothing: no revision, no audit event, no
    new surface hash. Criteria equal to the pack default clear the override. If
    `expected_revision` is given and someone saved since, StaleCriteria is raised and
    nothing is written. Saving acknowledges a pack default that moved underneath. The
    audit event's action is `action` if given (a revert records "criteria_reverted").
    """
    normalised = criteria_validate(criteria)
    current_category = _locked(category)
    if normalised == current_category.effective_criteria:
        return current_category
    back_to_default = normalised == current_category.default_criteria
    return _override_put(
        current_category,
        None if back_to_default else normalised,
        expected_revision=expected_revision,
        actor=actor,
        reason=reason,
        action=action
        or ("criteria_override_cleared" if back_to_default else "criteria_override_saved"),
        verb="criteria edited",
    )


@transaction.atomic
def criteria_override_clear(
    *, category: Category, actor, expected_revision: int | None = None, reason: str = ""
) -> Category:
    """Drop a category's override so the pack default is in force again (no-op if none)."""
    current_category = _locked(category)
    if not current_category.is_overridden:
        return current_category
    return _override_put(
        current_category,
        None,
        expected_revision=expected_revision,
        actor=actor,
        reason=reason,
        action="criteria_override_cleared",
        verb="override cleared",
    )


@transaction.atomic
def criteria_override_keep(
    *, category: Category, actor, expected_revision: int | None = None, reason: str = ""
) -> Category:
    """Keep an override whose pack default moved underneath it, and lower the flag."""
    current_category = _locked(category)
    if not current_category.default_moved:
        return current_category
    _check_revision(current_category, expected_revision, current_category.effective_criteria)
    with acting(actor=actor, reason=reason):
        previous_default = current_category.previous_default
        current_category.default_moved = False
        current_category.previous_default = None
        current_category.revision += 1
        current_category.save()
        store_backend().write_criteria(project=current_category.project)
        audit_record(
            action="criteria_override_kept",
            target=current_category,
            project=current_category.project,
            category=current_category.name,
            changes=field_changes(previous_default or {}, current_category.default_criteria)
            if previous_default
            else {},
        )
    return current_category
