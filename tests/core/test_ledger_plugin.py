"""Plugin mode reproduces magic-context's injection rules exactly."""

import json

import pytest

from memadmin.core.ledger import LedgerComposite, LedgerError, LedgerMemory, assemble

NOW = 1_700_000_000_000
WRAPPER = "<project-memory>\n</project-memory>"


class CharCounter:
    """Count one token per character, so every cost is easy to work out by hand."""

    name = "chars"

    def count(self, text: str) -> int:
        return len(text)


CHARS = CharCounter()


def memory(memory_id: int, content: str = "fact", **fields) -> LedgerMemory:
    values = {
        "category": "PROJECT_RULES",
        "status": "active",
        "importance": 50,
        "expires_at": None,
        "superseded_by": None,
        "last_seen_at": 1_000,
        "verified_at": None,
        "updated_at": 1_000,
    }
    values.update(fields)
    return LedgerMemory(id=memory_id, content=content, **values)


def run(memories, composites=(), *, budget=4000, tie_break="recent", counter=CHARS):
    return assemble(
        memories,
        composites,
        budget=budget,
        counter=counter,
        mode="plugin",
        now_ms=NOW,
        tie_break=tie_break,
    )


def rows_by_id(result):
    return {row.memory_id: row for row in result.rows}


def selection(result):
    """Return the ids of the competitors, in selection order."""
    return [row.memory_id for row in sorted(result.rows, key=lambda row: row.order or 0)]


def test_the_block_matches_upstreams_wire_format():
    """The block is one tag or line per line, with no newline after the closing wrapper."""
    result = run(
        [
            memory(12, "Use scripts/release.sh VERSION for releases."),
            memory(40, "MCP sends numeric parameters as strings.", category="CONSTRAINTS"),
        ]
    )
    assert result.rendered == (
        "<project-memory>\n"
        "<PROJECT_RULES>\n"
        "#12: Use scripts/release.sh VERSION for releases.\n"
        "</PROJECT_RULES>\n"
        "<CONSTRAINTS>\n"
        "#40: MCP sends numeric parameters as strings.\n"
        "</CONSTRAINTS>\n"
        "</project-memory>"
    )


def test_an_empty_selection_injects_nothing():
    """With no candidate the block is the empty string and nothing is accounted."""
    result = run([memory(1, status="archived")])
    assert result.rendered == ""
    assert result.used_tokens == 0
    assert result.wrapper_tokens == len(WRAPPER)
    assert result.by_category == {}


def test_a_memory_that_does_not_fit_is_skipped_and_a_later_one_admitted():
    """Selection is greedy with skip: a big memory is passed over, a smaller later one fits."""
    big = memory(1, "x" * 600, importance=90)
    small = memory(2, "small", importance=10)
    result = run([big, small], budget=500)
    rows = rows_by_id(result)
    assert (rows[1].injected, rows[1].reason) == (False, "over budget")
    assert (rows[2].injected, rows[2].reason) == (True, None)
    assert selection(result) == [1, 2]
    # The skipped memory did not open its category: the small one pays the tags.
    assert rows[2].tokens == len("#2: small\n") + len("<PROJECT_RULES>\n</PROJECT_RULES>\n")


def test_a_memory_that_exactly_fills_the_budget_is_admitted():
    """Admission is ``used + cost <= budget``."""
    tags = len("<PROJECT_RULES>\n</PROJECT_RULES>\n")
    line = len("#1: \n")
    content = "y" * (500 - len(WRAPPER) - tags - line)
    assert run([memory(1, content)], budget=500).used_tokens == 500
    assert run([memory(1, content + "y")], budget=500).used_tokens == 0


def test_the_wrapper_is_charged_from_the_start():
    """The first memory's running total already includes the wrapper."""
    result = run([memory(1, "abc")])
    cost = len("#1: abc\n") + len("<PROJECT_RULES>\n</PROJECT_RULES>\n")
    assert result.rows[0].tokens == cost
    assert result.rows[0].running_total == len(WRAPPER) + cost
    assert result.used_tokens == len(WRAPPER) + cost


def test_a_category_pays_for_its_tags_once():
    """Only the first admitted memory of a category is charged the category's tags."""
    result = run(
        [memory(1, "aa", importance=60), memory(2, "bb"), memory(3, "cc", category="NAMING")]
    )
    rows = rows_by_id(result)
    rules_tags = len("<PROJECT_RULES>\n</PROJECT_RULES>\n")
    naming_tags = len("<NAMING>\n</NAMING>\n")
    assert rows[1].tokens == len("#1: aa\n") + rules_tags
    assert rows[2].tokens == len("#2: bb\n")
    assert rows[3].tokens == len("#3: cc\n") + naming_tags
    assert result.by_category == {
        "PROJECT_RULES": rows[1].tokens + rows[2].tokens,
        "NAMING": rows[3].tokens,
    }
    assert result.used_tokens == len(WRAPPER) + sum(result.by_category.values())


def test_running_totals_and_order_follow_the_selection():
    """Each competitor gets its rank and the total after it was tried."""
    result = run([memory(1, importance=10), memory(2, importance=90), memory(3, importance=50)])
    assert [(row.memory_id, row.order) for row in result.rows] == [(2, 1), (3, 2), (1, 3)]
    totals = [row.running_total for row in result.rows]
    assert totals == sorted(totals)
    assert totals[-1] == result.used_tokens


def test_permanent_memories_are_selected_first():
    """A permanent memory outranks an active one of any importance."""
    result = run([memory(1, importance=100), memory(2, status="permanent", importance=1)])
    assert selection(result) == [2, 1]


def test_a_missing_importance_ranks_below_any_value():
    """A memory without importance comes after one of importance 1."""
    result = run([memory(1, importance=None), memory(2, importance=1)])
    assert selection(result) == [2, 1]


def test_higher_importance_is_selected_first():
    """Importance orders the candidates, highest first."""
    result = run([memory(1, importance=40), memory(2, importance=70), memory(3, importance=55)])
    assert selection(result) == [2, 3, 1]


def test_the_recent_tie_break_prefers_the_latest_sighting_or_verification():
    """Ties go to the more recent of last_seen_at and verified_at, missing last, then id."""
    memories = [
        memory(1, last_seen_at=100, verified_at=None),
        memory(2, last_seen_at=100, verified_at=900),
        memory(3, last_seen_at=500, verified_at=None),
        memory(4, last_seen_at=None, verified_at=None),
        memory(5, last_seen_at=None, verified_at=500),
        memory(6, last_seen_at=100, verified_at=None),
    ]
    assert selection(run(memories, tie_break="recent")) == [2, 3, 5, 1, 6, 4]


def test_the_id_tie_break_prefers_the_lower_id():
    """In 0.38's rule, ties go to the lower id whatever the dates."""
    memories = [
        memory(3, last_seen_at=900),
        memory(1, last_seen_at=100),
        memory(2, last_seen_at=500, verified_at=1_000),
    ]
    assert selection(run(memories, tie_break="id")) == [1, 2, 3]


def test_the_store_order_stands_between_memories_without_importance():
    """Two memories without importance tie outright: category, newest update, then id."""
    memories = [
        memory(1, importance=None, category="NAMING", updated_at=10, last_seen_at=9_000),
        memory(2, importance=None, category="ARCHITECTURE", updated_at=10, last_seen_at=1),
        memory(3, importance=None, category="ARCHITECTURE", updated_at=20, last_seen_at=1),
        memory(4, importance=None, category="ARCHITECTURE", updated_at=20, last_seen_at=1),
    ]
    for tie_break in ("recent", "id"):
        assert selection(run(memories, tie_break=tie_break)) == [3, 4, 2, 1]


def test_the_callers_order_does_not_matter():
    """Assembly sorts its input itself: any permutation gives the same result."""
    memories = [
        memory(i, f"fact {i}", importance=(None, 50, 60)[i % 3], category=("B", "A")[i % 2])
        for i in range(1, 30)
    ]
    forward = run(memories, budget=500)
    backward = run(list(reversed(memories)), budget=500)
    assert forward.to_json() == backward.to_json()


def test_archived_superseded_and_expired_memories_are_not_candidates():
    """Each ineligible memory says why it is out; expiry at exactly now counts as expired."""
    result = run(
        [
            memory(1, status="archived"),
            memory(2, status="archived", superseded_by=9),
            memory(3, expires_at=NOW),
            memory(4, expires_at=NOW - 1),
            memory(5, expires_at=NOW + 1),
            memory(6, status="permanent", expires_at=NOW - 1),
        ]
    )
    reasons = {row.memory_id: row.reason for row in result.rows}
    assert reasons == {
        1: "archived",
        2: "superseded",
        3: "expired",
        4: "expired",
        5: None,
        6: "expired",
    }
    assert result.coverage.eligible == 1
    ineligible = [row for row in result.rows if row.reason is not None]
    assert all(row.order is None and row.running_total is None for row in ineligible)


def test_every_memory_gets_exactly_one_row():
    """Competitors come first in selection order, then the rest by id."""
    result = run([memory(5, status="archived"), memory(3), memory(1, status="archived")])
    assert [row.memory_id for row in result.rows] == [3, 1, 5]


def test_an_ineligible_memory_reports_the_cost_of_its_line():
    """A memory that never competed reports what its line alone would cost."""
    result = run([memory(7, "gone", status="archived")])
    assert result.rows[0].tokens == len("#7: gone\n")


def test_render_order_puts_the_five_categories_first_then_the_rest_alphabetically():
    """The five come in their fixed order, the others alphabetically, memories by id."""
    categories = [
        "ZETA",
        "NAMING",
        "CONFIG_VALUES",
        "alpha",
        "CONSTRAINTS",
        "ARCHITECTURE",
        "OPS_RULES",
        "PROJECT_RULES",
    ]
    memories = [memory(100 - i, category=name) for i, name in enumerate(categories)]
    memories.append(memory(1, category="NAMING"))
    tags = [line for line in run(memories).rendered.splitlines() if line.startswith("<")]
    assert tags[1:-1:2] == [
        "<PROJECT_RULES>",
        "<ARCHITECTURE>",
        "<CONSTRAINTS>",
        "<CONFIG_VALUES>",
        "<NAMING>",
        "<OPS_RULES>",
        "<ZETA>",
        "<alpha>",
    ]
    naming = run(memories).rendered.split("<NAMING>\n")[1].split("\n</NAMING>")[0]
    assert naming == "#1: fact\n#99: fact"


def test_categories_beyond_the_five_sort_by_utf16_code_units():
    """Other categories compare as JavaScript strings do, by UTF-16 code unit."""
    astral, high_bmp = "\U0001f600", "\uff21"  # an emoji sorts before U+FF21 in UTF-16
    result = run([memory(1, category=high_bmp), memory(2, category=astral)])
    assert result.rendered.index(f"<{astral}>") < result.rendered.index(f"<{high_bmp}>")
    assert list(result.by_category) == [astral, high_bmp]


def test_content_escapes_only_ampersand_and_angle_brackets():
    """Quotes stay as they are in content; & < > are escaped."""
    result = run([memory(1, """a & b <c> "d" 'e'""")])
    assert "#1: a &amp; b &lt;c&gt; \"d\" 'e'" in result.rendered


def test_category_tags_also_escape_quotes():
    """A category name escapes & < > and both quotes in its tags, and its cost counts that."""
    name = """A&B"C'<D>"""
    result = run([memory(1, category=name)])
    escaped = "A&amp;B&quot;C&apos;&lt;D&gt;"
    assert f"<{escaped}>\n#1: fact\n</{escaped}>" in result.rendered
    assert result.rows[0].tokens == len("#1: fact\n") + len(f"<{escaped}>\n</{escaped}>\n")
    assert result.by_category == {name: result.rows[0].tokens}


def test_a_workspace_memory_names_its_project_after_the_id():
    """The source name renders as `` [name]`` after the id, escaped like content."""
    result = run(
        [
            memory(4, "shared fact", source_name="billing <api> & co"),
            memory(5, "own fact", source_name=""),
        ]
    )
    assert "#4 [billing &lt;api&gt; &amp; co]: shared fact" in result.rendered
    assert "#5: own fact" in result.rendered


def test_kind_is_computed_from_composites_in_plugin_mode_too():
    """Plugin mode injects details like any memory but still labels them."""
    composite = LedgerComposite(id=1, type="sequence", head_id=1, member_ids=(2, 3))
    result = run([memory(1), memory(2), memory(3), memory(4)], [composite])
    rows = rows_by_id(result)
    assert [rows[i].kind for i in (1, 2, 3, 4)] == ["header", "detail", "detail", "standalone"]
    assert all(row.injected for row in result.rows)
    assert rows[1].detail_ids == (2, 3)
    assert rows[2].header_ids == (1,)


def test_plugin_coverage_counts_only_what_is_injected():
    """Nothing in a plugin block points further, so coverage is injected over eligible."""
    composite = LedgerComposite(id=1, type="sequence", head_id=1, member_ids=(2,))
    result = run(
        [memory(1, importance=90), memory(2, "x" * 600), memory(3, status="archived")],
        [composite],
        budget=500,
    )
    assert (result.coverage.eligible, result.coverage.injected) == (2, 1)
    assert result.coverage.reachable == 1
    assert result.coverage.share == 0.5
    assert rows_by_id(result)[2].reachable is False


@pytest.mark.parametrize("budget", [499, 20001, 0, -1])
def test_a_budget_outside_the_allowed_range_is_refused(budget):
    """The budget must lie between 500 and 20000 tokens."""
    with pytest.raises(LedgerError, match="between 500 and 20000"):
        run([memory(1)], budget=budget)


@pytest.mark.parametrize("budget", ["4000", 4000.0, True, None])
def test_a_budget_that_is_not_a_whole_number_is_refused(budget):
    """The budget must be an int."""
    with pytest.raises(LedgerError, match="whole number"):
        run([memory(1)], budget=budget)


def test_the_budget_bounds_are_allowed():
    """500 and 20000 are both valid budgets."""
    assert run([memory(1)], budget=500).budget == 500
    assert run([memory(1)], budget=20000).budget == 20000


def test_an_unknown_mode_or_tie_break_is_refused():
    """Only the known modes and tie-breaks are accepted; LedgerError is a ValueError."""
    with pytest.raises(ValueError, match="Unknown mode 'full'"):
        assemble([], budget=4000, counter=CHARS, mode="full", now_ms=NOW)
    with pytest.raises(LedgerError, match="Unknown tie-break 'oldest'"):
        assemble([], budget=4000, counter=CHARS, mode="plugin", now_ms=NOW, tie_break="oldest")


def test_an_id_given_twice_is_refused():
    """Ids must be unique: each is one row and one ``#id``."""
    with pytest.raises(LedgerError, match="#3 is given twice"):
        run([memory(3), memory(3, "again")])


def test_the_result_serialises_to_json():
    """``to_json()`` gives plain values that ``json.dumps`` accepts."""
    composite = LedgerComposite(id=1, type="theme", head_id=1, member_ids=(2,))
    result = run([memory(1), memory(2), memory(3, status="archived")], [composite])
    data = json.loads(json.dumps(result.to_json()))
    assert data["mode"] == "plugin"
    assert data["counter_name"] == "chars"
    assert data["coverage"]["share"] == 1.0
    assert data["rows"][0]["detail_ids"] == [2]
    assert data["rendered"] == result.rendered
    assert result.injected_ids == [1, 2]
