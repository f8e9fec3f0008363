import dataclasses
import json
import re
from pathlib import Path

import pytest

from memadmin.core.facts import parse_facts
from memadmin.core.packs import NegativeExample, load_pack
from memadmin.core.prompts import (
    CURATE,
    HISTORIAN,
    SITES,
    TOOL_DESCRIPTION,
    effective_categories,
    render_all,
    render_curate,
    render_historian,
    render_tool_description,
    surface_hash,
)

PACKS = Path(__file__).resolve().parents[2] / "packs"
MAGIC = load_pack(PACKS / "magic-context.toml")
OPS = load_pack(PACKS / "ops-six.toml")


def texts(pack=MAGIC, categories=None):
    return render_all(pack.categories if categories is None else categories, pack.routing_test)


def with_criteria(pack, name, **changes):
    """Return the pack's categories with one category's criteria changed."""
    spec = pack.category(name)
    return effective_categories(pack, {name: dataclasses.replace(spec.criteria, **changes)})


def test_historian_lists_every_writable_criteria_in_priority_order():
    """The historian text holds each writable category's criteria, highest priority first."""
    text = render_historian(MAGIC.categories, MAGIC.routing_test)
    headings = re.findall(r"^### (\w+)$", text, flags=re.MULTILINE)
    assert tuple(headings) == MAGIC.writable_names()
    for spec in MAGIC.categories:
        if spec.legacy:
            assert spec.criteria.definition not in text
            continue
        criteria = spec.criteria
        assert criteria.test_question in text
        assert criteria.definition in text
        for example in criteria.positive_examples + criteria.exclusions:
            assert example in text
        for negative in criteria.negative_examples:
            assert f"{negative.example} ({negative.reason})" in text
    assert MAGIC.routing_test in text


def test_historian_contract_has_one_tag_per_writable_category():
    """The output contract tags exactly the writable categories, and the parser accepts it."""
    text = render_historian(MAGIC.categories, MAGIC.routing_test)
    contract = text[text.index("<facts>") : text.index("</facts>") + len("</facts>")]
    report = parse_facts(contract, MAGIC.writable_names())
    assert report.rejected == []
    assert tuple(f.category for f in report.accepted) == MAGIC.writable_names()
    assert "<USER_DIRECTIVES>" not in text


def test_historian_names_the_legacy_categories_as_read_only():
    """Legacy names appear once, as tags never to use; a pack without legacy omits the line."""
    text = render_historian(MAGIC.categories, MAGIC.routing_test)
    assert "read-only; never use them as tags: USER_DIRECTIVES, USER_PREFERENCES" in text
    assert "read-only" not in render_historian(OPS.categories, OPS.routing_test)


def test_curate_has_one_line_per_category_and_the_legacy_mapping():
    """The curate taxonomy lists each writable category once and maps each legacy one."""
    text = render_curate(MAGIC.categories, MAGIC.routing_test)
    for spec in MAGIC.categories:
        if spec.legacy:
            assert f"- {spec.name} -> {spec.maps_to}\n" in text
        else:
            assert f"- {spec.name}: {spec.criteria.test_question}\n" in text
    assert "Legacy" not in render_curate(OPS.categories, OPS.routing_test)


def tool_calls(text: str) -> dict[str, dict]:
    calls = [json.loads(line) for line in text.splitlines() if line.startswith("  {")]
    return {call["action"]: call for call in calls}


def test_tool_description_enumerates_the_writable_categories():
    """The ctx_memory category enum is the writable categories in priority order."""
    text = render_tool_description(MAGIC.categories, MAGIC.routing_test)
    assert "category: one of " + " | ".join(MAGIC.writable_names()) + ".\n" in text
    assert "USER_DIRECTIVES" not in text


def test_tool_description_has_one_valid_example_per_action():
    """Each action has one JSON example that obeys that action's rules."""
    calls = tool_calls(render_tool_description(OPS.categories, OPS.routing_test))
    assert set(calls) == {"write", "update", "archive", "merge", "get"}
    assert calls["write"]["category"] in OPS.writable_names()
    assert calls["write"]["content"] == OPS.categories[0].criteria.positive_examples[0]
    assert len(calls["update"]["ids"]) == 1
    assert calls["archive"]["reason"]
    assert len(calls["merge"]["ids"]) >= 2
    assert 1 <= len(calls["get"]["ids"]) <= 20


def test_tool_example_falls_back_when_no_category_has_examples():
    """Criteria without positive examples still give a usable write example."""
    categories = [
        dataclasses.replace(c, criteria=dataclasses.replace(c.criteria, positive_examples=()))
        for c in OPS.categories
    ]
    calls = tool_calls(render_tool_description(categories, OPS.routing_test))
    assert calls["write"] == {
        "action": "write",
        "category": "OPS_RULES",
        "content": "One durable fact.",
    }


def test_render_all_returns_the_three_sites():
    """render_all gives one text per site, each the output of its own renderer."""
    rendered = texts()
    assert tuple(rendered) == SITES
    assert rendered[HISTORIAN] == render_historian(MAGIC.categories, MAGIC.routing_test)
    assert rendered[CURATE] == render_curate(MAGIC.categories, MAGIC.routing_test)
    assert rendered[TOOL_DESCRIPTION] == render_tool_description(
        MAGIC.categories, MAGIC.routing_test
    )


def test_rendering_ignores_input_order():
    """The same categories in any order give the same texts."""
    shuffled = tuple(reversed(MAGIC.categories))
    assert texts(categories=shuffled) == texts()
    assert surface_hash(texts(categories=shuffled)) == surface_hash(texts())


def test_rendering_needs_a_writable_category():
    """A list with only legacy categories is refused."""
    legacy_only = [c for c in MAGIC.categories if c.legacy]
    with pytest.raises(ValueError, match="writable"):
        render_all(legacy_only, MAGIC.routing_test)


def test_overrides_replace_pack_criteria():
    """An override stands in for the pack default of its category only."""
    categories = with_criteria(MAGIC, "NAMING", definition="Names follow the house style.")
    naming = next(c for c in categories if c.name == "NAMING")
    assert naming.criteria.definition == "Names follow the house style."
    assert [c for c in categories if c.name != "NAMING"] == [
        c for c in MAGIC.categories if c.name != "NAMING"
    ]
    assert "Names follow the house style." in render_all(categories, MAGIC.routing_test)[HISTORIAN]


def test_overrides_of_unknown_categories_are_refused():
    """An override for a category the pack lacks is an error, not ignored."""
    with pytest.raises(ValueError, match="OPS_RULES"):
        effective_categories(MAGIC, {"OPS_RULES": OPS.category("OPS_RULES").criteria})


def test_surface_hash_is_stable_and_hex():
    """The same texts always give the same 64-character hex digest."""
    digest = surface_hash(texts())
    assert digest == surface_hash(dict(reversed(texts().items())))
    assert re.fullmatch(r"[0-9a-f]{64}", digest)


@pytest.mark.parametrize("name", MAGIC.writable_names())
@pytest.mark.parametrize(
    "changes",
    [
        {"test_question": "Is this a rule we keep?"},
        {"definition": "A recurring rule, reworded."},
        {"positive_examples": ("Release with scripts/ship.sh VERSION.",)},
        {"negative_examples": (NegativeExample("Ran it once.", "An event; not a fact."),)},
        {"exclusions": ("Task progress, reworded.",)},
        {"hard_stop": "Stop here."},
    ],
    ids=lambda changes: next(iter(changes)),
)
def test_one_changed_field_changes_the_surface_hash(name, changes):
    """Changing any rendered criteria field of any writable category changes the hash."""
    changed = with_criteria(MAGIC, name, **changes)
    assert surface_hash(texts(categories=changed)) != surface_hash(texts())


def test_one_changed_word_in_the_routing_test_changes_the_surface_hash():
    """A single word changed in the routing test changes the hash."""
    changed = render_all(MAGIC.categories, MAGIC.routing_test.replace("never", "seldom"))
    assert surface_hash(changed) != surface_hash(texts())


def test_surface_hash_frames_each_site():
    """Moving text from one site to the next gives a different hash."""
    rendered = texts()
    moved = dict(rendered)
    moved[HISTORIAN] = rendered[HISTORIAN] + rendered[CURATE][:1]
    moved[CURATE] = rendered[CURATE][1:]
    assert surface_hash(moved) != surface_hash(rendered)
