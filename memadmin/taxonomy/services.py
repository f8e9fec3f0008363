"""Write packs and categories: installing a pack into a project.

Criteria editing, overrides and pack upgrades build on these (see the taxonomy issue).
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.packs import PackSpec, criteria_to_dict, find_pack

from .models import Category, Pack


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
    """
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
        for category in spec.categories:
            Category.objects.create(
                project=project,
                name=category.name,
                priority=category.priority,
                ttl_days=category.ttl_days,
                legacy=category.legacy,
                maps_to=category.maps_to or "",
                default_criteria=criteria_to_dict(category.criteria),
            )
        project.pack = pack
        project.save(update_fields=["pack"])
        audit_record(
            action="pack_installed",
            target=pack,
            project=project,
            changes={"pack": spec.name, "version": spec.version, "categories": list(spec.names())},
        )
    return pack
