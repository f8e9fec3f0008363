"""Pack upgrades: the plan, criteria-only upgrades, migration events and refusals."""

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.memories.models import Memory
from memadmin.memories.pack_upgrade_services import UpgradeRefused, pack_upgrade, pack_upgrade_plan
from memadmin.memories.services import memory_create
from memadmin.taxonomy.models import Category, SurfaceHashRecord
from memadmin.taxonomy.selectors import category_by_name, category_names, current_surface_hash
from memadmin.taxonomy.services import criteria_override_save, pack_load
from memadmin.taxonomy.upgrades import CRITERIA_ONLY, NAMES_CHANGED, NOTHING, parse_mapping

pytestmark = pytest.mark.django_db

OPS_DEFINITION = "A recurring instruction for running the project's systems"
NEW_OPS_DEFINITION = "A standing instruction for running the project's systems"
ENV_QUESTION = "Does this describe how the environment is built today"
NEW_ENV_QUESTION = "Does this describe how the environment is set up today"


def snapshot(project):
    """Return everything an upgrade may change, to compare before and after a refusal."""
    project.refresh_from_db()
    categories = list(
        Category.objects.filter(project=project)
        .order_by("name")
        .values_list(
            "name", "priority", "default_criteria", "override_criteria", "default_moved", "revision"
        )
    )
    memories = list(Memory.objects.filter(project=project).values_list("id", "category"))
    return project.pack_id, categories, memories, SurfaceHashRecord.objects.count()


def override(project, name, **changes):
    category = category_by_name(project, name)
    return criteria_override_save(
        category=category, criteria={**category.effective_criteria, **changes}, actor="system"
    )


def test_the_same_file_is_nothing_to_do(project, packs_dir):
    """Upgrading to the file already installed plans nothing."""
    plan = pack_upgrade_plan(project=project, spec=pack_load("ops-six"), mapping={})
    assert plan.kind == NOTHING
    assert plan.allowed


def test_a_criteria_only_upgrade_keeps_overrides_and_flags_the_moved_ones(project, ops_variant):
    """New defaults apply where nobody overrode them; overrides stay and are flagged if moved."""
    override(project, "OPS_RULES", hard_stop="Ours.")
    override(project, "RESEARCH", hard_stop="Also ours.")
    ops_variant(
        (OPS_DEFINITION, NEW_OPS_DEFINITION),
        (ENV_QUESTION, NEW_ENV_QUESTION),
    )
    spec = pack_load("ops-six")
    plan = pack_upgrade_plan(project=project, spec=spec, mapping={})
    assert plan.kind == CRITERIA_ONLY
    assert plan.defaults_changed == ("ENV_STATE",)
    assert [f.name for f in plan.flagged] == ["OPS_RULES"]
    assert plan.flagged[0].fields == ["definition"]

    pack_upgrade(project=project, spec=spec, actor="system")
    project.refresh_from_db()
    assert project.pack.version == "1.1.0"
    env = category_by_name(project, "ENV_STATE")
    assert env.effective_criteria["test_question"].startswith(NEW_ENV_QUESTION)
    ops = category_by_name(project, "OPS_RULES")
    assert ops.effective_criteria["hard_stop"] == "Ours."
    assert ops.default_moved
    assert ops.previous_default["definition"].startswith(OPS_DEFINITION)
    assert ops.default_criteria["definition"].startswith(NEW_OPS_DEFINITION)
    assert ops.effective_criteria["definition"].startswith(OPS_DEFINITION)
    research = category_by_name(project, "RESEARCH")
    assert research.is_overridden and not research.default_moved


def test_an_upgrade_records_the_new_surface_hash_and_an_audit_event(project, ops_variant):
    """The upgrade is one audit event and, as the texts changed, one new surface hash."""
    ops_variant((ENV_QUESTION, NEW_ENV_QUESTION))
    plan = pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system")
    record = SurfaceHashRecord.objects.filter(project=project).first()
    assert record.value == current_surface_hash(project) == plan.surface_after
    assert record.previous_value == plan.surface_before
    assert record.change == "pack upgrade ops-six 1.0.0 -> ops-six 1.1.0"
    event = AuditEvent.objects.get(action="pack_upgraded")
    assert event.changes["kind"] == CRITERIA_ONLY
    assert event.changes["defaults_changed"] == ["ENV_STATE"]


def test_an_upgrade_that_only_bumps_the_version_keeps_the_hash(project, ops_variant):
    """A new file whose texts are the same leaves the surface hash as it was."""
    ops_variant()
    records = SurfaceHashRecord.objects.count()
    plan = pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system")
    assert plan.surface_before == plan.surface_after
    assert SurfaceHashRecord.objects.count() == records


def test_a_rename_with_memories_is_refused_without_a_map_and_changes_nothing(project, ops_variant):
    """Memories may not be left in a category the new pack no longer defines."""
    memory_create(project=project, category="INCIDENTS", content="Disk full.", actor="agent")
    ops_variant(('name = "INCIDENTS"', 'name = "OUTAGES"'))
    spec = pack_load("ops-six")
    plan = pack_upgrade_plan(project=project, spec=spec, mapping={})
    assert plan.kind == NAMES_CHANGED
    assert (plan.added, plan.removed) == (("OUTAGES",), ("INCIDENTS",))
    assert not plan.allowed
    assert "--map INCIDENTS=<category>" in plan.refusals[0]
    before = snapshot(project)
    with pytest.raises(UpgradeRefused):
        pack_upgrade(project=project, spec=spec, actor="system")
    assert snapshot(project) == before


def test_a_rename_with_a_map_moves_the_memories_in_one_step(project, ops_variant):
    """With --map the memories move, the old category goes and the new one arrives."""
    memory = memory_create(
        project=project, category="INCIDENTS", content="Disk full.", actor="agent"
    )
    override(project, "INCIDENTS", hard_stop="Old override.")
    ops_variant(('name = "INCIDENTS"', 'name = "OUTAGES"'))
    plan = pack_upgrade(
        project=project, spec=pack_load("ops-six"), mapping={"INCIDENTS": "OUTAGES"}, actor="system"
    )
    assert plan.dropped_overrides == ("INCIDENTS",)
    memory.refresh_from_db()
    assert memory.category == "OUTAGES"
    assert "INCIDENTS" not in category_names(project)
    assert "OUTAGES" in category_names(project)
    event = AuditEvent.objects.get(action="recategorised", object_id=str(memory.pk))
    assert event.changes == {"category": ["INCIDENTS", "OUTAGES"]}
    assert memory.history.first().history_actor == "system"
    assert Category.history.filter(name="INCIDENTS", history_type="-").exists()


def test_a_removed_category_without_memories_needs_no_map(project, ops_variant):
    """An empty removed category simply goes."""
    ops_variant(('name = "INCIDENTS"', 'name = "OUTAGES"'))
    plan = pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system")
    assert plan.allowed
    assert "OUTAGES" in category_names(project)


@pytest.mark.parametrize(
    ("mapping", "expected"),
    [
        ({"INCIDENTS": "NOWHERE"}, "NOWHERE is not a category of ops-six 1.1.0"),
        ({"ENV_STATE": "OUTAGES"}, "ENV_STATE stays in ops-six 1.1.0"),
        ({"GHOST": "OUTAGES"}, "GHOST is not a category of this project"),
    ],
)
def test_a_bad_map_is_refused(project, ops_variant, mapping, expected):
    """A map from a kept or unknown category, or to an unknown one, is refused."""
    memory_create(project=project, category="INCIDENTS", content="Disk full.", actor="agent")
    ops_variant(('name = "INCIDENTS"', 'name = "OUTAGES"'))
    plan = pack_upgrade_plan(project=project, spec=pack_load("ops-six"), mapping=mapping)
    assert any(expected in reason for reason in plan.refusals)


def test_moving_onto_an_exact_duplicate_is_refused(project, ops_variant):
    """A memory that would land on its exact twin in the target category blocks the upgrade."""
    memory_create(project=project, category="INCIDENTS", content="Disk full.", actor="agent")
    memory_create(project=project, category="RESEARCH", content="disk  FULL.", actor="agent")
    ops_variant(('name = "INCIDENTS"', 'name = "OUTAGES"'))
    plan = pack_upgrade_plan(
        project=project, spec=pack_load("ops-six"), mapping={"INCIDENTS": "RESEARCH"}
    )
    assert not plan.allowed
    assert "exact duplicate" in plan.refusals[0]


def test_parse_mapping():
    """--map takes OLD=NEW pairs; anything else is an error."""
    assert parse_mapping(["A=B", " C = D "]) == {"A": "B", "C": "D"}
    for bad in (["A"], ["=B"], ["A="], ["A=B", "A=C"]):
        with pytest.raises(ValueError):
            parse_mapping(bad)


# --- the command


def test_the_command_prints_the_plan_and_changes_nothing_without_apply(
    project, ops_variant, capsys
):
    """`pack upgrade` shows the plan first; only --apply applies it."""
    override(project, "OPS_RULES", hard_stop="Ours.")
    ops_variant((OPS_DEFINITION, NEW_OPS_DEFINITION))
    before = snapshot(project)
    call_command("pack", "upgrade", "ops-six", "--project", project.identity)
    out = capsys.readouterr().out
    assert "Upgrade plan: ops-six 1.0.0 -> ops-six 1.1.0 (criteria only)" in out
    assert "OPS_RULES: override kept" in out
    assert "old default" in out and "new default" in out and "override" in out
    assert "run again with --apply" in out
    assert snapshot(project) == before
    call_command("pack", "upgrade", "ops-six", "--project", project.identity, "--apply")
    project.refresh_from_db()
    assert project.pack.version == "1.1.0"


def test_the_command_refuses_and_changes_nothing(project, ops_variant, capsys):
    """A refused plan is printed with its reasons and the command fails."""
    memory_create(project=project, category="INCIDENTS", content="Disk full.", actor="agent")
    ops_variant(('name = "INCIDENTS"', 'name = "OUTAGES"'))
    before = snapshot(project)
    with pytest.raises(CommandError, match="refused"):
        call_command("pack", "upgrade", "ops-six", "--project", project.identity, "--apply")
    assert "REFUSED" in capsys.readouterr().out
    assert snapshot(project) == before


def test_the_command_applies_a_map(project, ops_variant):
    """--map OLD=NEW on the command line moves the memories."""
    memory = memory_create(project=project, category="INCIDENTS", content="Disk.", actor="agent")
    ops_variant(('name = "INCIDENTS"', 'name = "OUTAGES"'))
    call_command(
        "pack", "upgrade", "ops-six", "--project", project.identity,
        "--map", "INCIDENTS=OUTAGES", "--apply",
    )  # fmt: skip
    memory.refresh_from_db()
    assert memory.category == "OUTAGES"


@pytest.mark.parametrize(
    "broken",
    [
        ('name = "INCIDENTS"', 'name = "incidents"'),
        ("[[categories]]", "[[categories]"),
        ("priority = 2", "priority = 1"),
    ],
)
def test_a_malformed_pack_changes_nothing(project, ops_variant, broken):
    """A pack file that does not load is refused before anything is planned."""
    ops_variant(broken)
    before = snapshot(project)
    with pytest.raises(CommandError):
        call_command("pack", "upgrade", "ops-six", "--project", project.identity, "--apply")
    assert snapshot(project) == before


def test_a_malformed_map_changes_nothing(project, ops_variant):
    """A --map that is not OLD=NEW is refused."""
    ops_variant()
    before = snapshot(project)
    with pytest.raises(CommandError, match="OLD=NEW"):
        call_command(
            "pack", "upgrade", "ops-six", "--project", project.identity, "--map", "X", "--apply"
        )
    assert snapshot(project) == before


def test_a_default_moved_back_under_an_override_lowers_the_flag(project, ops_variant):
    """An upgrade that restores the default an override was written against unflags it."""
    override(project, "OPS_RULES", hard_stop="Ours.")
    ops_variant((OPS_DEFINITION, NEW_OPS_DEFINITION))
    pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system")
    assert category_by_name(project, "OPS_RULES").default_moved

    ops_variant(version="1.2.0")
    project.refresh_from_db()
    pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system")
    ops = category_by_name(project, "OPS_RULES")
    assert not ops.default_moved
    assert ops.previous_default is None
    assert ops.effective_criteria["hard_stop"] == "Ours."


def test_the_hash_history_names_an_upgrade_once(project, ops_variant, client_as):
    """The upgrade's default reason repeats its change, so the history does not show it twice."""
    ops_variant((OPS_DEFINITION, NEW_OPS_DEFINITION))
    pack_upgrade(project=project, spec=pack_load("ops-six"), actor="system")
    page = client_as("viewer").get(reverse("taxonomy:surface", args=[project.pk]))
    assert page.content.decode().count("pack upgrade ops-six 1.0.0 -&gt; ops-six 1.1.0") == 1
