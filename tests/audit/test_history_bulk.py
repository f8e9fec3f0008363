"""Versions written together (`history_bulk_create`) are stamped as a save stamps its own."""

import pytest

from memadmin.audit.context import acting
from memadmin.core.packs import criteria_to_dict
from memadmin.projects.services import project_create
from memadmin.taxonomy.models import Category
from memadmin.taxonomy.services import pack_install, pack_load

# What differs between two projects' versions whatever wrote them.
OWN = {"history_id", "id", "project_id", "history_date", "history_change_id"}


def versions(project) -> list[dict]:
    rows = Category.history.filter(project=project).order_by("name").values()
    return [{k: v for k, v in row.items() if k not in OWN} for row in rows]


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["system", "admin"])
@pytest.mark.parametrize("reason", ["", "a new project"])
def test_a_pack_install_stamps_its_categories_versions_as_saves_would(people, who, reason):
    """The actor, its kind, the person and the reason are those one save at a time writes."""
    actor = people["admin"] if who == "admin" else "system"
    spec = pack_load("ops-six")
    saved = project_create(identity="git:" + "1" * 40, name="Saved", actor="system")
    with acting(actor=actor, reason=reason):
        for category in spec.categories:
            Category.objects.create(
                project=saved,
                name=category.name,
                priority=category.priority,
                ttl_days=category.ttl_days,
                legacy=category.legacy,
                maps_to=category.maps_to or "",
                default_criteria=criteria_to_dict(category.criteria),
            )
    installed = project_create(identity="git:" + "2" * 40, name="Installed", actor="system")
    pack_install(project=installed, spec=spec, actor=actor, reason=reason)
    assert versions(installed) == versions(saved)
    assert len(versions(installed)) == len(spec.categories)
    assert {row["history_user_id"] for row in versions(installed)} == {
        people["admin"].pk if who == "admin" else None
    }
    assert {row["history_change_reason"] for row in versions(installed)} == {reason or None}
