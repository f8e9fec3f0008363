"""Refusals and no-ops of the pack and criteria services that no other test reached."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.core.facts import parse_facts
from memadmin.memories.facts_services import facts_write
from memadmin.memories.pack_upgrade_services import NOTHING, pack_upgrade, pack_upgrade_plan
from memadmin.projects.services import project_create
from memadmin.taxonomy.models import Category, SurfaceHashRecord
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import (
    criteria_override_keep,
    criteria_override_save,
    criteria_validate,
    pack_install,
    pack_load,
    pack_spec_to_json,
    surface_hash_note,
)

pytestmark = pytest.mark.django_db


def test_installing_the_same_pack_again_changes_nothing(project):
    """Re-installing the pack a project runs returns it and records nothing."""
    before = AuditEvent.objects.count()
    assert pack_install(project=project, spec=pack_load("ops-six"), actor="system") == project.pack
    assert AuditEvent.objects.count() == before


def test_installing_another_pack_over_one_is_refused(project):
    """A project running a pack is switched by an upgrade, not by another install."""
    with pytest.raises(ValidationError, match=r"already runs pack ops-six 1\.0\.0"):
        pack_install(project=project, spec=pack_load("magic-context"), actor="system")
    project.refresh_from_db()
    assert project.pack.name == "ops-six"


def test_a_surface_hash_note_outside_an_acting_block_is_an_error(project):
    """Noting a changed surface hash needs the actor of the change that made it."""
    category = category_by_name(project, "RESEARCH")
    moved = {**category.effective_criteria, "definition": "Changed behind the services."}
    Category.objects.filter(pk=category.pk).update(default_criteria=moved)
    records = SurfaceHashRecord.objects.count()
    with pytest.raises(ValueError, match=r"^surface_hash_note must run inside an acting block$"):
        surface_hash_note(project=project, change="edited by hand")
    assert SurfaceHashRecord.objects.count() == records


def test_a_criteria_error_in_a_list_item_names_the_item_counted_from_one():
    """A problem in the second negative example is shown as item 2 of that field."""
    criteria = {
        "test_question": "Q?",
        "definition": "D.",
        "positive_examples": ["p"],
        "negative_examples": [{"example": "x", "reason": "r"}, {"example": "y", "reason": ""}],
        "exclusions": [],
    }
    with pytest.raises(ValidationError) as refused:
        criteria_validate(criteria)
    [(field, [message])] = refused.value.message_dict.items()
    assert field == "negative_examples"
    assert message.endswith(", item 2, reason must be a non-empty string.")


def test_keeping_an_override_whose_default_did_not_move_changes_nothing(project, people):
    """Keep on an override whose default never moved writes no event and no revision."""
    category = category_by_name(project, "RESEARCH")
    saved = criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "hard_stop": "Cite."},
        actor=people["curator"],
    )
    before = AuditEvent.objects.count()
    kept = criteria_override_keep(category=saved, actor=people["curator"])
    assert (kept.revision, kept.default_moved) == (saved.revision, False)
    assert AuditEvent.objects.count() == before


def test_an_upgrade_plan_needs_a_pack_installed():
    """A project without a pack has nothing to upgrade from: the plan is refused."""
    bare = project_create(identity="git:" + "f" * 40, name="Bare", actor="system")
    with pytest.raises(ValidationError, match="Bare runs no pack yet"):
        pack_upgrade_plan(project=bare, spec=pack_load("ops-six"), mapping={})


def test_upgrading_to_the_pack_already_installed_writes_nothing(project):
    """An upgrade to the same pack file is a plan of nothing, and applying it records nothing."""
    before = AuditEvent.objects.count()
    plan = pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system")
    assert plan.kind == NOTHING
    assert AuditEvent.objects.count() == before


# --- the audit events' fields, every one


def test_an_install_records_the_pack_its_version_and_categories(make_project):
    """`pack_installed` names the pack, its version and its categories in priority order."""
    project = make_project("ops-six")
    event = AuditEvent.objects.get(action="pack_installed", project=project)
    assert (event.object_type, event.object_id) == ("pack", str(project.pack_id))
    assert event.changes == {
        "pack": "ops-six",
        "version": "1.0.0",
        "categories": list(pack_load("ops-six").names()),
    }


def test_an_upgrade_records_every_part_of_its_plan(project, ops_variant):
    """`pack_upgraded` records both packs, the kind and what was added, removed, moved,
    flagged and changed."""
    ops_variant(
        (
            "Does this describe how the environment is built today",
            "Does this describe how the environment is set up today",
        )
    )
    pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system", reason="new text")
    event = AuditEvent.objects.get(action="pack_upgraded")
    assert (event.project_id, event.reason) == (project.pk, "new text")
    assert event.changes == {
        "from": "ops-six 1.0.0",
        "to": "ops-six 1.1.0",
        "kind": "criteria only",
        "added": [],
        "removed": [],
        "moved": {},
        "flagged": [],
        "defaults_changed": ["ENV_STATE"],
    }


# --- what a sampled mutation run of the services found unpinned


def test_a_pack_as_json_holds_every_field_of_the_pack_and_its_categories():
    """The stored pack keeps its name, version, texts and each category's fields."""
    spec = pack_load("magic-context")
    data = pack_spec_to_json(spec)
    assert (data["name"], data["version"]) == (spec.name, spec.version)
    assert (data["description"], data["routing_test"]) == (spec.description, spec.routing_test)
    assert [
        (c["name"], c["priority"], c["ttl_days"], c["legacy"], c["maps_to"])
        for c in data["categories"]
    ] == [(c.name, c.priority, c.ttl_days, c.legacy, c.maps_to) for c in spec.categories]
    assert any(c["ttl_days"] for c in data["categories"])


def test_historian_facts_are_written_with_their_line_as_the_reason(project):
    """Without a reason given, each fact's memory says which output line it came from."""
    report = parse_facts(
        "<facts>\n<OPS_RULES>\n* Drain first.\n</OPS_RULES>\n</facts>\n", ["OPS_RULES"]
    )
    facts_write(project=project, report=report, actor="historian")
    assert AuditEvent.objects.get(action="created").reason == "historian output, line 3"
    facts_write(project=project, report=report, actor="historian", reason="session 9")
    assert AuditEvent.objects.get(action="seen_again").reason == "session 9"


def test_keeping_a_moved_override_counts_one_revision(project, people):
    """Keeping an override whose default moved is one new revision."""
    category = category_by_name(project, "RESEARCH")
    saved = criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "hard_stop": "Cite."},
        actor=people["curator"],
    )
    Category.objects.filter(pk=saved.pk).update(
        default_moved=True, previous_default=saved.default_criteria
    )
    kept = criteria_override_keep(category=saved, actor=people["curator"])
    assert kept.revision == saved.revision + 1


def test_an_upgrade_that_changes_a_default_counts_one_revision(project, ops_variant):
    """A category whose pack default changed in an upgrade is one revision further."""
    before = category_by_name(project, "ENV_STATE").revision
    ops_variant(
        (
            "Does this describe how the environment is built today",
            "Does this describe how the environment is set up today",
        )
    )
    pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system")
    assert category_by_name(project, "ENV_STATE").revision == before + 1
