import re

from hypothesis import given
from hypothesis import strategies as st

from memadmin.core.facts import (
    AcceptedFact,
    RejectedItem,
    parse_facts,
)

ALLOWED = ("PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "CONFIG_VALUES", "NAMING")


def lines(*rows: str) -> str:
    return "\n".join(rows) + "\n"


def test_well_formed_output_is_accepted_in_order():
    """Every bullet of a known, closed block is accepted with its category and line."""
    report = parse_facts(
        lines(
            "<facts>",
            "<PROJECT_RULES>",
            "* Release with scripts/release.sh VERSION.",
            "- Run make check before committing.",
            "</PROJECT_RULES>",
            "<CONSTRAINTS>",
            "* MCP sends numeric parameters as strings.",
            "</CONSTRAINTS>",
            "</facts>",
        ),
        ALLOWED,
    )
    assert report.accepted == [
        AcceptedFact("PROJECT_RULES", "Release with scripts/release.sh VERSION.", 3),
        AcceptedFact("PROJECT_RULES", "Run make check before committing.", 4),
        AcceptedFact("CONSTRAINTS", "MCP sends numeric parameters as strings.", 7),
    ]
    assert report.rejected == []


def test_text_outside_facts_blocks_is_ignored():
    """The historian's other output around the facts block is neither accepted nor rejected."""
    report = parse_facts(
        lines("<compartment>Work on the release</compartment>", "<facts>", "</facts>", "Done."),
        ALLOWED,
    )
    assert (report.accepted, report.rejected) == ([], [])


def test_unknown_category_is_rejected_bullet_by_bullet():
    """A block of a category outside the allowed list keeps each bullet, with the reason."""
    report = parse_facts(
        lines(
            "<facts>", "<OPS_RULES>", "* Drain nodes first.", "* Deploy with just.", "</OPS_RULES>"
        )
        + "</facts>",
        ALLOWED,
    )
    assert report.accepted == []
    assert report.rejected == [
        RejectedItem("Drain nodes first.", 3, "unknown category <OPS_RULES>"),
        RejectedItem("Deploy with just.", 4, "unknown category <OPS_RULES>"),
    ]


def test_empty_unknown_block_is_reported_once():
    """An empty block of an unknown category is one rejected item naming the category."""
    report = parse_facts(lines("<facts>", "<OPS_RULES>", "</OPS_RULES>", "</facts>"), ALLOWED)
    assert report.rejected == [RejectedItem("<OPS_RULES>", 2, "unknown category <OPS_RULES>")]


def test_empty_block_and_empty_bullet_are_rejected():
    """A block without bullets and a bullet without text are each reported."""
    report = parse_facts(
        lines("<facts>", "<NAMING>", "</NAMING>", "<ARCHITECTURE>", "* ", "-", "</ARCHITECTURE>")
        + "</facts>",
        ALLOWED,
    )
    assert report.rejected == [
        RejectedItem("<NAMING>", 2, "empty block"),
        RejectedItem("<ARCHITECTURE>", 4, "empty block"),
        RejectedItem("*", 5, "empty bullet"),
        RejectedItem("-", 6, "empty bullet"),
    ]


def test_block_of_only_empty_bullets_is_also_an_empty_block():
    """A block whose bullets are all empty yields the empty bullets and an empty block."""
    report = parse_facts(lines("<facts>", "<NAMING>", "*", "</NAMING>", "</facts>"), ALLOWED)
    assert report.rejected == [
        RejectedItem("<NAMING>", 2, "empty block"),
        RejectedItem("*", 3, "empty bullet"),
    ]


def test_unclosed_block_rejects_its_opening_and_bullets():
    """A block cut off by the next tag keeps its bullets as rejected, not accepted."""
    report = parse_facts(
        lines("<facts>", "<CONSTRAINTS>", "* Never closed.", "<NAMING>", "* Kept.", "</NAMING>")
        + "</facts>",
        ALLOWED,
    )
    assert report.accepted == [AcceptedFact("NAMING", "Kept.", 5)]
    assert report.rejected == [
        RejectedItem("<CONSTRAINTS>", 2, "malformed: unclosed <CONSTRAINTS>"),
        RejectedItem("Never closed.", 3, "malformed: unclosed <CONSTRAINTS>"),
    ]


def test_unclosed_facts_block_keeps_its_closed_blocks():
    """Output cut off before </facts> still yields its complete blocks, and says so."""
    report = parse_facts(
        lines(
            "<facts>", "<NAMING>", "* Branches are <issue>-<slug>.", "</NAMING>", "<ARCHITECTURE>"
        ),
        ALLOWED,
    )
    assert report.accepted == [AcceptedFact("NAMING", "Branches are <issue>-<slug>.", 3)]
    assert report.rejected == [
        RejectedItem("<facts>", 1, "malformed: unclosed <facts>"),
        RejectedItem("<ARCHITECTURE>", 5, "malformed: unclosed <ARCHITECTURE>"),
    ]


def test_text_outside_a_bullet_is_rejected():
    """Prose inside a facts block, in or out of a category block, is reported."""
    report = parse_facts(
        lines("<facts>", "Here are the facts:", "<NAMING>", "Branches use slugs.", "</NAMING>")
        + "</facts>",
        ALLOWED,
    )
    assert [(r.line, r.reason) for r in report.rejected] == [
        (2, "malformed: text outside a bullet"),
        (3, "empty block"),
        (4, "malformed: text outside a bullet"),
    ]


def test_stray_closing_tag_and_nested_facts_are_rejected():
    """A closing tag that closes nothing, and a second <facts> inside one, are reported."""
    report = parse_facts(lines("<facts>", "</NAMING>", "<facts>", "</facts>"), ALLOWED)
    assert report.rejected == [
        RejectedItem("</NAMING>", 2, "malformed: unexpected </NAMING>"),
        RejectedItem("<facts>", 3, "malformed: nested <facts>"),
    ]


def test_missing_facts_block_is_reported():
    """Output without any <facts> block yields one rejected item about the whole output."""
    report = parse_facts("I found nothing worth keeping.", ALLOWED)
    assert report.accepted == []
    assert report.rejected == [RejectedItem("", 0, "no <facts> block")]


def test_every_facts_block_is_read():
    """Facts from several <facts> blocks are all accepted."""
    block = lines("<facts>", "<NAMING>", "* One.", "</NAMING>", "</facts>")
    report = parse_facts(block + "between\n" + block, ALLOWED)
    assert [(f.content, f.line) for f in report.accepted] == [("One.", 3), ("One.", 9)]


def test_tags_may_share_a_line_with_a_bullet():
    """Opening tags at the start and closing tags at the end of a line are structure."""
    report = parse_facts("<facts><NAMING>* Use slugs.</NAMING></facts>", ALLOWED)
    assert report.accepted == [AcceptedFact("NAMING", "Use slugs.", 1)]
    assert report.rejected == []


def test_tags_inside_a_bullet_are_content():
    """Angle brackets in the middle or end of a fact are kept as text."""
    report = parse_facts(
        lines(
            "<facts>", "<NAMING>", "* Generic types read List<T>, closed with </div>", "</NAMING>"
        )
        + "</facts>",
        ALLOWED,
    )
    assert report.accepted[0].content == "Generic types read List<T>, closed with </div>"


def test_category_names_are_case_sensitive():
    """A lower-case tag is not the upper-case category."""
    report = parse_facts(lines("<facts>", "<naming>", "* x", "</naming>", "</facts>"), ALLOWED)
    assert report.rejected == [RejectedItem("x", 3, "unknown category <naming>")]


# --- properties

TAG_LINES = ["<facts>", "</facts>"] + [
    tag for name in ("NAMING", "ARCHITECTURE", "OPS_RULES") for tag in (f"<{name}>", f"</{name}>")
]
PLAIN = st.text(
    alphabet=st.characters(blacklist_characters="<>\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
    max_size=20,
)
LINE = st.one_of(
    st.sampled_from(TAG_LINES),
    PLAIN,
    PLAIN.map(lambda text: "* " + text),
    PLAIN.map(lambda text: "- " + text),
)
TAG_ONLY = re.compile(r"^\s*</?[A-Za-z_][A-Za-z0-9_]*>\s*$")


@given(st.text(), st.lists(st.text(max_size=12), max_size=4))
def test_parse_never_raises_and_accepts_only_allowed_categories(text, allowed):
    """Any input parses; each accepted fact has an allowed category and non-empty content."""
    report = parse_facts(text, allowed)
    for fact in report.accepted:
        assert fact.category in allowed
        assert fact.content and fact.content == fact.content.strip()
        assert 1 <= fact.line <= len(text.splitlines())
    for item in report.rejected:
        assert item.reason


@given(st.lists(LINE, max_size=40))
def test_every_line_inside_a_facts_block_is_accounted_for(rows):
    """No non-blank, non-tag line inside a facts block is dropped silently."""
    report = parse_facts("\n".join(rows), ["NAMING", "ARCHITECTURE"])
    accounted = {f.line for f in report.accepted} | {r.line for r in report.rejected}
    inside = False
    for number, row in enumerate(rows, start=1):
        if not inside:
            inside = row.strip() == "<facts>"
            continue
        if row.strip() == "</facts>":
            inside = False
        elif row.strip() and not TAG_ONLY.match(row):
            assert number in accounted, (number, row)
    assert not {f.line for f in report.accepted} & {r.line for r in report.rejected}


FACT = PLAIN.map(str.strip).filter(lambda text: text and text[0] not in "*-")


@given(st.lists(st.tuples(st.sampled_from(ALLOWED), st.lists(FACT, min_size=1, max_size=4))))
def test_output_in_the_contract_format_parses_back_exactly(blocks):
    """Facts written in the prompt's output contract come back unchanged, nothing rejected."""
    rows = ["<facts>"]
    for category, facts in blocks:
        rows += [f"<{category}>", *(f"* {fact}" for fact in facts), f"</{category}>"]
    rows.append("</facts>")
    report = parse_facts("\n".join(rows), ALLOWED)
    assert report.rejected == []
    expected = [(category, fact) for category, facts in blocks for fact in facts]
    assert [(f.category, f.content) for f in report.accepted] == expected


def test_category_blocks_without_a_facts_wrapper_are_rejected_not_dropped():
    """Category tags with bullets but no <facts> around them are reported as no facts block."""
    report = parse_facts(
        lines("<PROJECT_RULES>", "* Release with scripts/release.sh.", "</PROJECT_RULES>"),
        ALLOWED,
    )
    assert report.accepted == []
    assert report.rejected == [RejectedItem("", 0, "no <facts> block")]


def test_a_closing_facts_tag_alone_is_no_facts_block():
    """Only an opening <facts> tag starts a facts block; a lone </facts> does not."""
    report = parse_facts(lines("* Release first.", "</facts>"), ALLOWED)
    assert report.accepted == []
    assert report.rejected == [RejectedItem("", 0, "no <facts> block")]


def test_rejected_prose_and_a_trailing_stray_tag_keep_their_text_and_line():
    """A rejected line keeps its text; a closing tag that ends a bullet's line keeps that line."""
    report = parse_facts(
        lines("<facts>", "Here are the facts:", "<NAMING>", "* Slugs.</RULES>", "</NAMING>")
        + "</facts>",
        ALLOWED,
    )
    assert report.accepted == [AcceptedFact("NAMING", "Slugs.", 4)]
    assert report.rejected == [
        RejectedItem("Here are the facts:", 2, "malformed: text outside a bullet"),
        RejectedItem("</RULES>", 4, "malformed: unexpected </RULES>"),
    ]
