"""Fixed examples at the ledger's edges, each worked out by hand with one token a character.

Costs with the character counter: the wrapper ``<project-memory>\\n</project-memory>`` is 34,
a category's tags ``<PROJECT_RULES>\\n`` and ``</PROJECT_RULES>\\n`` are 33, and a line
``#id: content\\n`` is its length plus the newline.
"""

import pytest

from memadmin.core.ledger import (
    Coverage,
    LedgerComposite,
    LedgerError,
    LedgerResult,
    LedgerRows,
    PreparedStore,
    assemble,
    compare_modes,
    render,
)
from memadmin.core.ledger.graph import CompositeIndex
from memadmin.core.ledger.headers import details_suffix
from memadmin.core.ledger.prepared import count_all

from .test_ledger_plugin import CHARS, NOW, memory, run

WRAPPER, TAGS = 34, 33


def line_cost(memory_id: int, content: str) -> int:
    return len(f"#{memory_id}: {content}\n")


def test_a_memory_that_opens_its_category_and_exactly_fills_the_budget_is_injected():
    """Admission is ``used + cost <= budget``: an exact fit, tags included, is in."""
    content = "a" * 466
    budget = WRAPPER + TAGS + line_cost(12, content)
    assert budget == 539
    exact = run([memory(12, content)], budget=budget)
    assert exact.injected_ids == [12]
    assert exact.used_tokens == budget
    short = run([memory(12, content)], budget=budget - 1)
    assert short.injected_ids == []
    assert short.rows[0].reason == "over budget"


def test_a_memory_that_exactly_fills_what_its_open_category_left_is_injected():
    """A memory whose category is already open fits when its line alone fills the rest."""
    first, second = "a" * 400, "b" * 50
    budget = WRAPPER + TAGS + line_cost(12, first) + line_cost(13, second)
    assert budget == 529
    assert run([memory(12, first), memory(13, second)], budget=budget).injected_ids == [12, 13]
    assert run([memory(12, first), memory(13, second)], budget=budget - 1).injected_ids == [12]


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("a < b", "#7: a &lt; b"),
        ("a > b", "#7: a &gt; b"),
        ("R&D", "#7: R&amp;D"),
        ("<b>&</b>", "#7: &lt;b&gt;&amp;&lt;/b&gt;"),
        ("plain", "#7: plain"),
    ],
)
def test_each_of_amp_lt_gt_is_escaped_even_alone(content, line):
    """A memory's line escapes ``&``, ``<`` and ``>``, also when only one of them occurs."""
    assert render.memory_line(7, content) == line
    assert f"\n{line}\n" in run([memory(7, content)]).rendered


def test_a_source_name_is_escaped_and_shown_in_brackets():
    """A source name appears in brackets after the id, escaped like content."""
    assert render.memory_line(7, "x", "a<b") == "#7 [a&lt;b]: x"


def test_rows_compare_equal_only_when_every_row_is_equal():
    """Rows of the same length that differ in one row are not equal; a list compares too."""
    one = run([memory(1, "first"), memory(2, "second")]).rows
    same = run([memory(1, "first"), memory(2, "second")]).rows
    other = run([memory(1, "first"), memory(2, "other text")]).rows
    assert isinstance(one, LedgerRows)
    assert one == same
    assert one == list(same)
    assert len(one) == len(other)
    assert one != other
    assert one != list(other)
    assert one != list(same)[:1]
    assert one != "rows"


def test_an_id_given_twice_is_named_even_when_it_is_not_the_first():
    """The duplicate check names the id that repeats, wherever it is in the list."""
    with pytest.raises(LedgerError, match=r"^Memory #2 is given twice; ids must be unique\.$"):
        run([memory(1), memory(2), memory(3), memory(2, "again")])


def test_the_json_of_a_result_pins_every_key():
    """``to_json()`` has every field of the result, its coverage and each of its rows."""
    result = assemble(
        [
            memory(12, "a" * 400),
            memory(13, "b" * 50),
            memory(40, "c" * 10, category="CONSTRAINTS", status="archived"),
        ],
        budget=4000,
        counter=CHARS,
        mode="plugin",
        now_ms=NOW,
        tie_break="id",
    )
    data = result.to_json()
    rendered = data.pop("rendered")
    assert rendered == (
        "<project-memory>\n<PROJECT_RULES>\n#12: "
        + "a" * 400
        + "\n#13: "
        + "b" * 50
        + "\n</PROJECT_RULES>\n</project-memory>"
    )
    row = {"kind": "standalone", "header_ids": [], "detail_ids": []}
    assert data == {
        "mode": "plugin",
        "assumes": "",
        "dropped": [],
        "tie_break": "id",
        "budget": 4000,
        "counter_name": "chars",
        "used_tokens": WRAPPER + TAGS + 406 + 56,
        "wrapper_tokens": WRAPPER,
        "coverage": {
            "eligible": 2,
            "injected": 2,
            "reachable": 2,
            "live": 2,
            "never_injectable": 0,
            "share": 1.0,
        },
        "by_category": {"PROJECT_RULES": TAGS + 406 + 56},
        "rows": [
            {
                **row,
                "memory_id": 12,
                "category": "PROJECT_RULES",
                "tokens": TAGS + 406,
                "running_total": WRAPPER + TAGS + 406,
                "injected": True,
                "reason": None,
                "order": 1,
                "reachable": True,
            },
            {
                **row,
                "memory_id": 13,
                "category": "PROJECT_RULES",
                "tokens": 56,
                "running_total": WRAPPER + TAGS + 406 + 56,
                "injected": True,
                "reason": None,
                "order": 2,
                "reachable": True,
            },
            {
                **row,
                "memory_id": 40,
                "category": "CONSTRAINTS",
                "tokens": len("#40: cccccccccc\n"),
                "running_total": None,
                "injected": False,
                "reason": "archived",
                "order": None,
                "reachable": False,
            },
        ],
    }


def test_the_json_of_a_row_lists_its_headers_and_details():
    """A header's row lists its details and a detail's row its headers, as lists."""
    composite = LedgerComposite(id=1, type="theme", head_id=1, member_ids=(2, 3))
    result = assemble(
        [memory(1, "head"), memory(2, "two"), memory(3, "three")],
        [composite],
        budget=4000,
        counter=CHARS,
        mode="headers",
        now_ms=NOW,
        tie_break="id",
    )
    rows = {row["memory_id"]: row for row in result.to_json()["rows"]}
    assert rows[1]["kind"] == "header"
    assert rows[1]["detail_ids"] == [2, 3]
    assert rows[2]["kind"] == "detail"
    assert rows[2]["header_ids"] == [1]
    assert rows[2]["reason"] == "lazy detail"
    assert result.to_json()["coverage"] == {
        "eligible": 3,
        "injected": 1,
        "reachable": 3,
        "live": 3,
        "never_injectable": 0,
        "share": 1.0,
    }


def test_a_header_without_details_has_no_suffix():
    """The details suffix is empty for no details, else the ids in order, as upstream reads."""
    assert details_suffix(()) == ""
    assert details_suffix((13, 14)) == " (details: #13, #14 — ctx_memory get)"


def test_a_header_whose_details_are_all_ineligible_has_a_plain_line():
    """In headers mode a header with no eligible detail is injected with its plain line."""
    composite = LedgerComposite(id=1, type="theme", head_id=1, member_ids=(2,))
    result = assemble(
        [memory(1, "head"), memory(2, "gone", status="archived")],
        [composite],
        budget=4000,
        counter=CHARS,
        mode="headers",
        now_ms=NOW,
        tie_break="id",
    )
    assert "\n#1: head\n" in result.rendered


def test_the_composite_index_names_each_memorys_kind():
    """A head is a header, a member a detail, any other memory standalone."""
    index = CompositeIndex(
        [LedgerComposite(id=1, type="theme", head_id=1, member_ids=(2,))], {1, 2, 3}
    )
    assert [index.kind(n) for n in (1, 2, 3)] == ["header", "detail", "standalone"]


def test_a_prepared_store_orders_its_candidates_once_per_tie_break():
    """The selection order is worked out once and reused for every later assembly."""
    store = PreparedStore([memory(1), memory(2)], [], now_ms=NOW)
    assert store.selection("id") is store.selection("id")
    assert [m.id for m in store.selection("id")] == [1, 2]


def test_rows_sliced_with_a_step_are_every_other_row():
    """Rows support slices with a step, as a list does."""
    rows = run([memory(n, f"fact {n}") for n in range(1, 6)], tie_break="id").rows
    assert [row.memory_id for row in rows[0:5:2]] == [1, 3, 5]
    assert [row.memory_id for row in rows[1::3]] == [2, 5]


def test_other_categories_sort_by_utf16_code_units_lone_surrogates_included():
    """After the five named ones, categories sort as JavaScript compares strings."""
    categories = ["\uffff", "\U00010000", "A\udc00", "B", "NAMING"]
    ordered = sorted(categories, key=render.category_sort_key)
    assert ordered == ["NAMING", "A\udc00", "B", "\U00010000", "\uffff"]


def test_comparing_modes_judges_expiry_at_the_given_time():
    """Both modes of a comparison leave out a memory that expired before `now_ms`."""
    comparison = compare_modes(
        [memory(1, "live"), memory(2, "old", expires_at=NOW - 1)],
        budget=4000,
        counter=CHARS,
        now_ms=NOW,
    )
    for result in (comparison.plugin, comparison.headers):
        assert result.injected_ids == [1]
        assert {row.memory_id: row.reason for row in result.rows}[2] == "expired"


def test_coverage_of_nothing_eligible_is_whole():
    """With nothing eligible nothing is left out: the share is 1.0; otherwise reach / eligible."""
    assert Coverage(eligible=0, injected=0, reachable=0).share == 1.0
    assert Coverage(eligible=4, injected=1, reachable=3).share == 0.75


def test_rows_made_out_of_order_are_the_rows_made_in_order():
    """Asking for a later row first, then earlier ones and a slice over both, gives every row
    as a full pass would: injected, running totals and all."""
    store = [memory(n, f"fact {n}") for n in range(1, 6)]
    expected = list(run(store, tie_break="id").rows)
    rows = run(store, tie_break="id").rows
    assert rows[2] == expected[2]
    assert rows[0] == expected[0]
    assert rows[1] == expected[1]
    assert rows[0:5] == expected
    assert all(row.injected for row in rows)
    assert [row.running_total for row in rows] == [r.running_total for r in expected]


def test_a_row_index_too_far_back_is_an_index_error_as_for_a_list():
    """A negative index past the first row raises IndexError, naming the ledger rows."""
    rows = run([memory(1), memory(2, "two")]).rows
    assert rows[-1].memory_id == rows[1].memory_id
    with pytest.raises(IndexError, match=r"^ledger row index out of range$"):
        rows[-3]
    with pytest.raises(IndexError):
        rows[2]


class BatchOnly:
    """A counter that counts in bulk only: one call for many texts."""

    name = "batch"

    def count(self, text: str) -> int:
        raise AssertionError("a counter with count_many is asked in bulk")

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(text) for text in texts]


def test_a_counter_that_counts_in_bulk_is_asked_in_bulk():
    """`count_all` hands every text to `count_many` when the counter has it."""
    assert count_all(BatchOnly(), ["ab", "cde"]) == [2, 3]
    assert count_all(CHARS, ["ab", "cde"]) == [2, 3]


def test_a_prepared_store_keeps_its_lines_and_roots():
    """Lines and competing roots are worked out once per mode and tie-break, then reused."""
    composite = LedgerComposite(id=1, type="theme", head_id=1, member_ids=(2,))
    store = PreparedStore([memory(1, "head"), memory(2, "two")], [composite], now_ms=NOW)
    for mode in ("plugin", "headers"):
        assert store.lines(mode) is store.lines(mode)
    assert store.roots("id") is store.roots("id")
    assert store.roots("id") == {1}


def test_a_composite_under_an_unknown_head_does_not_hide_the_next_one():
    """A composite whose head is not in the store is skipped; later composites still count."""
    composites = [
        LedgerComposite(id=1, type="theme", head_id=99, member_ids=(2,)),
        LedgerComposite(id=2, type="theme", head_id=1, member_ids=(2,)),
    ]
    index = CompositeIndex(composites, {1, 2})
    assert list(index.members_of) == [1]
    assert list(index.members_of[1]) == [2]
    assert index.kind(1) == "header"


def test_a_result_over_plain_rows_reads_its_injected_ids_from_them():
    """A result whose rows are a plain list finds the injected ids by their flags."""
    made = run([memory(1), memory(2, "two", status="archived")], tie_break="id")
    plain = LedgerResult(
        **{**{f: getattr(made, f) for f in made.__slots__}, "rows": list(made.rows)}
    )
    assert plain.injected_ids == [1]
