"""The upgrade planner on plain data: kinds, flags, refusals and the printed plan."""

import dataclasses

from memadmin.core.packs import criteria_to_dict, load_pack
from memadmin.taxonomy.upgrades import (
    CRITERIA_ONLY,
    NAMES_CHANGED,
    NOTHING,
    CurrentCategory,
    format_plan,
    plan_upgrade,
)
from tests.conftest import PACKS

OPS = load_pack(PACKS / "ops-six.toml")


def current_of(spec, **overrides):
    """Return the pack's categories as a project holds them, some overridden or counted."""
    return [
        CurrentCategory(
            name=c.name,
            priority=c.priority,
            ttl_days=c.ttl_days,
            legacy=c.legacy,
            maps_to=c.maps_to or "",
            default=criteria_to_dict(c.criteria),
            override=overrides.get(c.name, {}).get("override"),
            memory_count=overrides.get(c.name, {}).get("count", 0),
        )
        for c in spec.categories
    ]


def plan(current, spec=OPS, mapping=None, digest=None):
    return plan_upgrade(
        current=current,
        old_routing_test=OPS.routing_test,
        old_label="ops-six 1.0.0",
        old_digest=OPS.digest if digest is None else digest,
        spec=spec,
        mapping=mapping or {},
    )


def with_category(spec, category, /, **changes):
    categories = tuple(
        dataclasses.replace(c, **changes) if c.name == category else c for c in spec.categories
    )
    return dataclasses.replace(spec, categories=categories, version="1.1.0", digest="new")


def with_criteria(spec, name, **changes):
    criteria = dataclasses.replace(spec.category(name).criteria, **changes)
    return with_category(spec, name, criteria=criteria)


def test_the_installed_file_is_nothing_to_do():
    """The same file, the same rows: nothing to do, nothing refused, the same hash."""
    result = plan(current_of(OPS))
    assert result.kind == NOTHING
    assert result.allowed
    assert result.surface_before == result.surface_after


def test_a_changed_default_under_an_override_is_flagged_with_three_texts():
    """The override stays; the plan holds old default, new default and override."""
    override = {**criteria_to_dict(OPS.category("RESEARCH").criteria), "hard_stop": "Ours."}
    spec = with_criteria(OPS, "RESEARCH", definition="New research definition.")
    result = plan(current_of(OPS, RESEARCH={"override": override}), spec)
    assert result.kind == CRITERIA_ONLY
    flagged = result.flagged[0]
    assert (flagged.name, flagged.fields) == ("RESEARCH", ["definition"])
    assert flagged.new_default["definition"] == "New research definition."
    assert flagged.override == override
    assert result.surface_before == result.surface_after  # the override is what is in force
    text = format_plan(result)
    assert "old default" in text and "New research definition." in text


def test_a_changed_priority_is_listed():
    """Property changes of kept categories are part of the plan."""
    result = plan(current_of(OPS), with_category(OPS, "RESEARCH", priority=9))
    assert [(p.name, p.field, p.old, p.new) for p in result.properties] == [
        ("RESEARCH", "priority", 5, 9)
    ]


def test_a_removed_category_with_memories_is_refused_until_mapped():
    """Memories may not be left behind; a map to a writable category lifts the refusal."""
    spec = with_category(OPS, "INCIDENTS", name="OUTAGES")
    current = current_of(OPS, INCIDENTS={"count": 3})
    refused = plan(current, spec)
    assert refused.kind == NAMES_CHANGED
    assert refused.refusals == (
        "3 memories in INCIDENTS, which ops-six 1.1.0 no longer defines: "
        "say where they go with --map INCIDENTS=<category>.",
    )
    mapped = plan(current, spec, {"INCIDENTS": "OUTAGES"})
    assert mapped.allowed
    assert [(m.old, m.new, m.memories) for m in mapped.moves] == [("INCIDENTS", "OUTAGES", 3)]
    assert "Move 3 memories: INCIDENTS -> OUTAGES" in format_plan(mapped)


def test_a_map_to_a_legacy_category_is_refused():
    """Memories move only to writable categories."""
    spec = with_category(
        with_category(OPS, "INCIDENTS", name="OUTAGES"),
        "RESEARCH",
        legacy=True,
        maps_to="OPS_RULES",
    )
    result = plan(current_of(OPS, INCIDENTS={"count": 1}), spec, {"INCIDENTS": "RESEARCH"})
    assert any("RESEARCH is a legacy category" in r for r in result.refusals)
    assert "REFUSED; nothing will change:" in format_plan(result)
