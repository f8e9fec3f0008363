import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memadmin.core.packs import (
    Criteria,
    CriteriaError,
    NegativeExample,
    PackError,
    PackNotFoundError,
    criteria_from_dict,
    criteria_to_dict,
    find_pack,
    list_packs,
    load_pack,
    load_pack_text,
)

PACKS = Path(__file__).resolve().parents[2] / "packs"
BROKEN = Path(__file__).resolve().parent / "broken_packs"

FIVE = ("PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "CONFIG_VALUES", "NAMING")
LEGACY_MAPPING = {
    "USER_DIRECTIVES": "PROJECT_RULES",
    "USER_PREFERENCES": "PROJECT_RULES",
    "CONFIG_DEFAULTS": "CONFIG_VALUES",
    "ARCHITECTURE_DECISIONS": "ARCHITECTURE",
    "ENVIRONMENT": "CONFIG_VALUES",
    "WORKFLOW_RULES": "PROJECT_RULES",
    "KNOWN_ISSUES": "CONSTRAINTS",
}

# One fixture per kind of error: (file stem, field, the whole problem as reported).
BROKEN_CASES = [
    ("toml-syntax", "line 19", "invalid TOML: Invalid value (column 12)"),
    ("missing-pack-table", "pack", "is required"),
    ("missing-key", "categories[1].criteria.test_question", "is required"),
    ("unknown-key", "categories[0].colour", "is not a known key"),
    ("wrong-type", "categories[1].priority", "must be an integer, not a string"),
    ("empty-definition", "categories[1].criteria.definition", "must be a non-empty string"),
    ("empty-example", "categories[1].criteria.positive_examples[1]", "must be a non-empty string"),
    ("duplicate-name", "categories[1].name", "RULES is already the name of categories[0]"),
    ("duplicate-priority", "categories[1].priority", "1 is already the priority of categories[0]"),
    (
        "bad-name",
        "categories[1].name",
        "'Limits' must match ^[A-Z][A-Z0-9_]{1,39}$ (e.g. PROJECT_RULES)",
    ),
    ("legacy-without-maps-to", "categories[2].maps_to", "is required when legacy = true"),
    ("maps-to-not-legacy", "categories[1].maps_to", "is allowed only when legacy = true"),
    (
        "maps-to-unknown",
        "categories[2].maps_to",
        "POLICIES is an unknown category; it must name a non-legacy category",
    ),
    (
        "maps-to-legacy",
        "categories[2].maps_to",
        "OLD_RULES is a legacy category; it must name a non-legacy category",
    ),
    ("stem-mismatch", "pack.name", "'magic-context' must equal the file stem 'stem-mismatch'"),
    ("bad-version", "pack.version", "'1.0' is not a semantic version like 1.0.0"),
    (
        "long-question",
        "categories[1].criteria.test_question",
        "is 309 characters long; the limit is 300",
    ),
    ("multi-line-question", "categories[1].criteria.test_question", "must be a single line"),
    (
        "long-definition",
        "categories[1].criteria.definition",
        "is 2013 characters long; the limit is 2000",
    ),
    (
        "long-example",
        "categories[1].criteria.positive_examples[0]",
        "is 531 characters long; the limit is 500",
    ),
    ("too-many-items", "categories[1].criteria.exclusions", "has 21 items; the limit is 20"),
    (
        "negative-without-reason",
        "categories[1].criteria.negative_examples[0].reason",
        "is required",
    ),
    ("zero-ttl", "categories[1].ttl_days", "must be a positive integer"),
    ("no-categories", "categories", "must be a non-empty array of [[categories]] tables"),
    ("only-legacy", "categories", "must hold at least one category without legacy = true"),
]


@pytest.fixture(scope="module")
def magic_context():
    return load_pack(PACKS / "magic-context.toml")


@pytest.mark.parametrize(("stem", "field", "problem"), BROKEN_CASES)
def test_broken_pack_error_names_file_field_and_problem(stem, field, problem):
    """Each broken fixture fails to load with a message naming the file, field and problem."""
    with pytest.raises(PackError) as caught:
        load_pack(BROKEN / f"{stem}.toml")
    error = caught.value
    assert (error.file, error.field) == (f"{stem}.toml", field)
    assert error.problem == problem
    assert str(error) == f"{stem}.toml: {field}: {error.problem}"


def test_every_broken_fixture_has_a_case():
    """No fixture in broken_packs/ goes untested."""
    assert sorted(p.stem for p in BROKEN.glob("*.toml")) == sorted(c[0] for c in BROKEN_CASES)


def test_pack_error_is_a_value_error():
    """A PackError can be caught as a ValueError."""
    assert issubclass(PackError, ValueError)
    assert issubclass(CriteriaError, ValueError)


def test_non_utf8_pack_is_rejected(tmp_path):
    """A pack file that is not UTF-8 text is refused with the file named."""
    path = tmp_path / "latin.toml"
    path.write_bytes(b'[pack]\nname = "caf\xe9"\n')
    with pytest.raises(PackError, match=r"^latin\.toml: file: is not UTF-8 text"):
        load_pack(path)


def test_magic_context_holds_the_five_then_the_seven_legacy(magic_context):
    """magic-context ranks the five writable categories first, then the seven legacy ones."""
    assert magic_context.writable_names() == FIVE
    assert magic_context.names()[:5] == FIVE
    assert set(magic_context.names()[5:]) == set(LEGACY_MAPPING)
    assert [c.priority for c in magic_context.categories[:5]] == [1, 2, 3, 4, 5]


def test_magic_context_legacy_mapping_and_ttls(magic_context):
    """Legacy categories map as upstream maps them; only two carry a time to live."""
    for name, target in LEGACY_MAPPING.items():
        spec = magic_context.category(name)
        assert (spec.legacy, spec.maps_to) == (True, target)
    ttls = {c.name: c.ttl_days for c in magic_context.categories if c.ttl_days is not None}
    assert ttls == {"WORKFLOW_RULES": 90, "KNOWN_ISSUES": 30}


@pytest.mark.parametrize("stem", ["magic-context", "ops-six"])
def test_shipped_packs_have_full_criteria(stem):
    """Every writable category of a shipped pack has 2-4 positive and 2-3 negative examples."""
    pack = load_pack(PACKS / f"{stem}.toml")
    for spec in pack.categories:
        if spec.legacy:
            assert spec.maps_to in spec.criteria.definition
            continue
        assert 2 <= len(spec.criteria.positive_examples) <= 4, spec.name
        assert 2 <= len(spec.criteria.negative_examples) <= 3, spec.name
        assert spec.criteria.exclusions, spec.name
        for negative in spec.criteria.negative_examples:
            # Each reason says where the example belongs, or that it is not a fact at all.
            assert "belongs in" in negative.reason or "not a fact" in negative.reason


def test_ops_six_has_the_field_report_taxonomy():
    """ops-six holds the six categories of the proposal's field report, all writable."""
    pack = load_pack(PACKS / "ops-six.toml")
    assert pack.writable_names() == (
        "OPS_RULES",
        "ENV_STATE",
        "CONFIG_VALUES",
        "INCIDENTS",
        "RESEARCH",
        "MODEL_KNOWLEDGE",
    )
    assert pack.names() == pack.writable_names()


def test_digest_is_sha256_of_the_file_bytes(magic_context):
    """The pack digest is the SHA-256 of the file exactly as stored."""
    raw = (PACKS / "magic-context.toml").read_bytes()
    assert magic_context.digest == hashlib.sha256(raw).hexdigest()
    assert magic_context.path == str(PACKS / "magic-context.toml")


def test_load_pack_text_matches_load_pack(magic_context):
    """Loading from text gives the same pack as loading the file."""
    text = (PACKS / "magic-context.toml").read_text(encoding="utf-8")
    from_text = load_pack_text(text, filename=str(PACKS / "magic-context.toml"))
    assert from_text == magic_context


def test_categories_are_sorted_by_priority_whatever_the_file_order():
    """Categories come out in priority order even when the file lists them otherwise."""
    text = (BROKEN / "duplicate-priority.toml").read_text(encoding="utf-8")
    text = text.replace('name = "duplicate-priority"', 'name = "shuffled"')
    text = text.replace("priority = 1\n", "priority = 9\n", 1)
    pack = load_pack_text(text, filename="shuffled.toml")
    assert [(c.name, c.priority) for c in pack.categories] == [
        ("LIMITS", 1),
        ("OLD_RULES", 3),
        ("RULES", 9),
    ]


def test_category_lookup_raises_key_error_for_unknown_names(magic_context):
    """Asking a pack for a category it lacks raises KeyError."""
    assert magic_context.category("NAMING").priority == 5
    with pytest.raises(KeyError):
        magic_context.category("OPS_RULES")


def test_list_packs_returns_every_pack_sorted():
    """list_packs reads every TOML file of the directory, sorted by name."""
    assert [p.name for p in list_packs(PACKS)] == ["magic-context", "ops-six"]


def test_find_pack_by_name():
    """find_pack loads the named pack and refuses unknown or path-like names."""
    assert find_pack(PACKS, "ops-six").name == "ops-six"
    with pytest.raises(PackNotFoundError, match="available: magic-context, ops-six"):
        find_pack(PACKS, "nope")
    with pytest.raises(PackNotFoundError):
        find_pack(PACKS / "sub", "../magic-context")


# --- criteria as JSON data


def _criteria_dict(**changes):
    data = {
        "test_question": "Is this a rule?",
        "definition": "A recurring rule.",
        "positive_examples": ["Run make check."],
        "negative_examples": [{"example": "Ran it.", "reason": "An event; not a fact."}],
        "exclusions": ["Progress."],
    }
    return data | changes


def test_criteria_round_trip(magic_context):
    """Every shipped criteria survives a trip through plain data unchanged."""
    for spec in magic_context.categories:
        assert criteria_from_dict(criteria_to_dict(spec.criteria)) == spec.criteria


def test_criteria_from_dict_builds_frozen_criteria():
    """Stored criteria come back as the same frozen dataclasses a pack yields."""
    criteria = criteria_from_dict(_criteria_dict(hard_stop="Never store secrets."))
    assert criteria == Criteria(
        test_question="Is this a rule?",
        definition="A recurring rule.",
        positive_examples=("Run make check.",),
        negative_examples=(NegativeExample("Ran it.", "An event; not a fact."),),
        exclusions=("Progress.",),
        hard_stop="Never store secrets.",
    )


@pytest.mark.parametrize(
    ("data", "field", "problem"),
    [
        (_criteria_dict(definition=""), "definition", "must be a non-empty string"),
        (_criteria_dict(definition="x" * 2001), "definition", "the limit is 2000"),
        (_criteria_dict(test_question="a\nb"), "test_question", "must be a single line"),
        (_criteria_dict(positive_examples="one"), "positive_examples", "must be a list"),
        (_criteria_dict(exclusions=["x"] * 21), "exclusions", "the limit is 20"),
        (_criteria_dict(extra=1), "extra", "is not a known key"),
        (
            _criteria_dict(negative_examples=[{"example": "x", "reason": 3}]),
            "negative_examples[0].reason",
            "must be a non-empty string",
        ),
        (_criteria_dict(hard_stop=None), "hard_stop", "must be a non-empty string"),
        ({"definition": "x"}, "exclusions", "is required"),
        ([], "", "must be a table, not a list"),
    ],
)
def test_criteria_from_dict_applies_pack_rules(data, field, problem):
    """Stored criteria are held to the same rules as pack criteria."""
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(data)
    assert caught.value.field == field
    assert problem in caught.value.problem


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=20), children, max_size=6)
    ),
    max_leaves=20,
)
CRITERIA_KEYS = st.sampled_from(
    [
        "test_question",
        "definition",
        "positive_examples",
        "negative_examples",
        "exclusions",
        "hard_stop",
    ]
)


@given(JSON | st.dictionaries(CRITERIA_KEYS, JSON))
def test_criteria_from_dict_raises_only_criteria_errors(data):
    """Any JSON value either reads as Criteria or raises CriteriaError, never anything else."""
    try:
        criteria = criteria_from_dict(data)
    except CriteriaError as error:
        assert error.problem
    else:
        assert criteria_from_dict(criteria_to_dict(criteria)) == criteria


@given(st.text(max_size=300))
def test_load_pack_text_raises_only_pack_errors(text):
    """Any text either loads as a pack or raises PackError naming the file."""
    try:
        load_pack_text(text, filename="fuzz.toml")
    except PackError as error:
        assert error.file == "fuzz.toml"
        assert error.field and error.problem


# --- limits and line rules, at their edges

AT_LIMIT = [
    ("test_question", "q" * 300, 300),
    ("definition", "d" * 2000, 2000),
    ("positive_examples", ["p" * 500], 500),
    ("exclusions", ["e" * 500], 500),
    ("hard_stop", "h" * 500, 500),
]


@pytest.mark.parametrize(("key", "value", "limit"), AT_LIMIT)
def test_a_text_exactly_at_its_limit_is_accepted_and_one_more_is_refused(key, value, limit):
    """Each text may be as long as its limit (after trimming), not one character longer."""
    criteria_from_dict(_criteria_dict(**{key: value}))
    padded = [f"  {v}\n" for v in value] if isinstance(value, list) else f"  {value}\n"
    criteria_from_dict(_criteria_dict(**{key: padded}))
    longer = [v + "x" for v in value] if isinstance(value, list) else value + "x"
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(_criteria_dict(**{key: longer}))
    assert caught.value.problem == (f"is {limit + 1} characters long; the limit is {limit}")


def test_a_negative_example_and_its_reason_may_each_be_500_characters():
    """A negative example's example and reason share the 500-character limit."""
    exact = [{"example": "x" * 500, "reason": "r" * 500}]
    criteria_from_dict(_criteria_dict(negative_examples=exact))
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(
            _criteria_dict(negative_examples=[{"example": "x", "reason": "r" * 501}])
        )
    assert caught.value.field == "negative_examples[0].reason"


def test_a_list_of_exactly_twenty_items_is_accepted():
    """A list may hold 20 items; the 21st is refused."""
    assert len(criteria_from_dict(_criteria_dict(exclusions=["x"] * 20)).exclusions) == 20
    with pytest.raises(CriteriaError, match="has 21 items; the limit is 20"):
        criteria_from_dict(_criteria_dict(positive_examples=["x"] * 21))


def test_only_the_test_question_must_be_one_line():
    """Definitions, examples, reasons, exclusions and hard stops may span several lines."""
    two = "First line.\nSecond line."
    criteria = criteria_from_dict(
        _criteria_dict(
            definition=two,
            positive_examples=[two],
            negative_examples=[{"example": two, "reason": two}],
            exclusions=[two],
            hard_stop=two,
        )
    )
    assert criteria.definition == criteria.positive_examples[0] == criteria.hard_stop == two
    assert criteria.negative_examples[0] == NegativeExample(two, two)
    assert criteria.exclusions == (two,)
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(_criteria_dict(test_question=two))
    assert (caught.value.field, caught.value.problem) == ("test_question", "must be a single line")


def test_a_negative_examples_value_that_is_no_list_is_named():
    """A negative-examples value that is not a list is refused under its own field."""
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(_criteria_dict(negative_examples="none"))
    assert (caught.value.field, caught.value.problem) == (
        "negative_examples",
        "must be a list, not a string",
    )


def test_an_unknown_category_name_is_the_key_error(magic_context):
    """Looking up a category the pack lacks raises KeyError carrying that name."""
    with pytest.raises(KeyError) as caught:
        magic_context.category("NOPE")
    assert caught.value.args == ("NOPE",)


def test_legacy_that_is_not_a_boolean_is_refused_by_field(tmp_path):
    """`legacy` must be true or false; a string is refused, naming the category's field."""
    text = (PACKS / "ops-six.toml").read_text()
    broken = text.replace('name = "RESEARCH"\n', 'name = "RESEARCH"\nlegacy = "yes"\n', 1)
    assert broken != text
    with pytest.raises(PackError) as caught:
        load_pack_text(broken, filename="ops-six.toml")
    assert caught.value.field.endswith("].legacy")
    assert caught.value.problem == "must be true or false, not a string"


def test_a_pack_missing_from_an_empty_folder_lists_none_available(tmp_path):
    """Asking an empty folder for a pack says that none is available there."""
    with pytest.raises(PackNotFoundError) as caught:
        find_pack(tmp_path, "ops-six")
    assert str(caught.value) == f"no pack named 'ops-six' in {tmp_path} (available: none)"


def test_maps_to_that_is_not_a_string_is_refused_by_field():
    """A legacy category's `maps_to` must be a category name; a number is refused."""
    text = (PACKS / "magic-context.toml").read_text()
    broken = text.replace('maps_to = "ARCHITECTURE"', "maps_to = 3", 1)
    assert broken != text
    with pytest.raises(PackError) as caught:
        load_pack_text(broken, filename="magic-context.toml")
    assert caught.value.field.endswith("].maps_to")
    assert caught.value.problem == "must be a string, not an integer"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (True, "must be a table, not a boolean"),
        (3, "must be a table, not an integer"),
        (1.5, "must be a table, not a float"),
        ("x", "must be a table, not a string"),
        ([], "must be a table, not a list"),
        (None, "must be a table, not NoneType"),
    ],
)
def test_a_value_of_the_wrong_type_is_named_by_its_type(value, problem):
    """A refusal names the type it got in words (any other type by its Python name)."""
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(value)
    assert caught.value.problem == problem


def test_a_table_where_a_list_belongs_is_named_a_table():
    """A TOML table given for a list is called a table."""
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(_criteria_dict(exclusions={}))
    assert (caught.value.field, caught.value.problem) == (
        "exclusions",
        "must be a list, not a table",
    )


PACK_HEAD = '[pack]\nname = "x"\nversion = "1.0.0"\ndescription = "D"\nrouting_test = "R"\n'


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        ("a =", "file", "invalid TOML: Invalid value (at end of document)"),
        ("pack = 3\ncategories = []\n", "pack", "must be a table, not an integer"),
        ('[pack]\nname = "x"\n[[categories]]\n', "pack.description", "is required"),
        (
            PACK_HEAD.replace('"D"', '" "') + "[[categories]]\n",
            "pack.description",
            "must be a non-empty string",
        ),
        (
            PACK_HEAD.replace('"R"', '""') + "[[categories]]\n",
            "pack.routing_test",
            "must be a non-empty string",
        ),
        (PACK_HEAD, "categories", "is required"),
    ],
)
def test_a_broken_pack_header_is_refused_by_field(text, field, problem):
    """Problems of the pack table and of the TOML itself name their field (`file` if none)."""
    with pytest.raises(PackError) as caught:
        load_pack_text(text, filename="x.toml")
    assert (caught.value.file, caught.value.field, caught.value.problem) == (
        "x.toml",
        field,
        problem,
    )


def test_a_missing_hard_stop_is_empty():
    """Criteria without a hard stop have an empty one."""
    assert criteria_from_dict(_criteria_dict()).hard_stop == ""


def test_a_pack_from_text_keeps_its_file_name_and_the_digest_of_its_text():
    """A pack read from text records the path it was given and the SHA-256 of the text."""
    text = (PACKS / "ops-six.toml").read_text()
    spec = load_pack_text(text, filename="some/where/ops-six.toml")
    assert spec.path == "some/where/ops-six.toml"
    assert spec.digest == hashlib.sha256((PACKS / "ops-six.toml").read_bytes()).hexdigest()


def test_an_unnamed_type_is_called_by_its_python_name():
    """A value of a type with no name in words is called by its Python type name."""
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(("a", "tuple"))
    assert caught.value.problem == "must be a table, not tuple"


def test_an_unknown_key_that_is_no_string_is_named():
    """Unknown keys of any type are named (they are sorted as text)."""
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict({**_criteria_dict(), 1: "x", "zeta": "y"})
    assert (caught.value.field, caught.value.problem) == ("1", "is not a known key")


def test_an_empty_negative_example_is_refused_by_its_field():
    """A negative example's empty text is refused under `negative_examples[i].example`."""
    with pytest.raises(CriteriaError) as caught:
        criteria_from_dict(_criteria_dict(negative_examples=[{"example": "", "reason": "r"}]))
    assert caught.value.field == "negative_examples[0].example"
