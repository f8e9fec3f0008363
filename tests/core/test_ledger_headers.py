"""Headers mode injects a table of contents: headers carry their details lazily."""

from memadmin.core.ledger import LedgerComposite, LedgerMemory, assemble, compare_modes

NOW = 1_700_000_000_000
TAGS = len("<PROJECT_RULES>\n</PROJECT_RULES>\n")


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


def composite(composite_id: int, head: int, *members: int, kind: str = "sequence"):
    return LedgerComposite(id=composite_id, type=kind, head_id=head, member_ids=members)


def run(memories, composites=(), *, budget=4000):
    return assemble(memories, composites, budget=budget, counter=CHARS, mode="headers", now_ms=NOW)


def rows_by_id(result):
    return {row.memory_id: row for row in result.rows}


def test_details_are_not_injected_but_reachable_through_their_header():
    """A detail stays out ("lazy detail") and is reachable when its header is injected."""
    result = run([memory(1, "Release SOP"), memory(2), memory(3)], [composite(1, 1, 2, 3)])
    rows = rows_by_id(result)
    assert rows[1].injected and rows[1].kind == "header"
    for detail in (2, 3):
        assert rows[detail].kind == "detail"
        assert (rows[detail].injected, rows[detail].reason) == (False, "lazy detail")
        assert (rows[detail].order, rows[detail].running_total) == (None, None)
        assert rows[detail].reachable
        assert rows[detail].header_ids == (1,)
    assert (result.coverage.injected, result.coverage.reachable) == (1, 3)


def test_a_header_line_lists_its_details_and_pays_for_them():
    """The header line ends with its detail ids and the tool to fetch them; its cost counts that."""
    result = run(
        [memory(12, "Release SOP, five steps"), memory(13), memory(14), memory(15)],
        [composite(1, 12, 13, 14, 15)],
    )
    line = "#12: Release SOP, five steps (details: #13, #14, #15 — ctx_memory get)"
    assert (
        result.rendered
        == f"<project-memory>\n<PROJECT_RULES>\n{line}\n</PROJECT_RULES>\n</project-memory>"
    )
    assert result.rows[0].tokens == len(line + "\n") + TAGS
    assert result.rows[0].detail_ids == (13, 14, 15)


def test_a_header_lists_details_once_in_composite_order():
    """Details from several composites are listed by composite id, then position, once each."""
    memories = [memory(i) for i in (1, 2, 3, 4, 5)]
    result = run(memories, [composite(9, 1, 2, 5), composite(4, 1, 4, 2, 3)])
    assert rows_by_id(result)[1].detail_ids == (4, 2, 3, 5)
    assert "(details: #4, #2, #3, #5 — ctx_memory get)" in result.rendered


def test_ineligible_details_are_not_listed():
    """An archived or expired member is neither listed nor counted as reachable."""
    memories = [memory(1), memory(2, status="archived"), memory(3, expires_at=NOW), memory(4)]
    result = run(memories, [composite(1, 1, 2, 3, 4)])
    rows = rows_by_id(result)
    assert rows[1].detail_ids == (4,)
    assert (rows[2].reason, rows[3].reason) == ("archived", "expired")
    assert not rows[2].reachable and not rows[3].reachable
    assert result.coverage.eligible == 2 and result.coverage.reachable == 2


def test_a_header_without_eligible_details_renders_as_a_plain_line():
    """With nothing to fetch, the header line carries no suffix."""
    result = run([memory(1, "summary"), memory(2, status="archived")], [composite(1, 1, 2)])
    assert "#1: summary\n" in result.rendered
    assert "details" not in result.rendered


def test_details_of_an_ineligible_header_compete_on_their_own():
    """When the header is archived its details are top level and can be injected."""
    result = run([memory(1, status="archived"), memory(2), memory(3)], [composite(1, 1, 2, 3)])
    rows = rows_by_id(result)
    assert rows[2].injected and rows[3].injected
    assert rows[2].kind == "detail"


def test_theme_headers_reach_details_through_category_headers():
    """Theme header -> category header -> details: all reachable from the theme alone."""
    memories = [memory(1, "theme"), memory(2, "deploys"), memory(3, "configs")]
    memories += [memory(i, f"step {i}") for i in range(10, 16)]
    composites = [
        composite(1, 1, 2, 3, kind="theme"),
        composite(2, 2, 10, 11, 12),
        composite(3, 3, 13, 14, 15),
    ]
    result = run(memories, composites)
    rows = rows_by_id(result)
    assert result.injected_ids == [1]
    assert rows[2].kind == "header" and rows[2].reason == "lazy detail"
    assert rows[1].detail_ids == (2, 3)
    assert rows[2].detail_ids == (10, 11, 12)
    assert all(row.reachable for row in result.rows)
    assert result.coverage.share == 1.0


def test_details_of_a_header_left_out_are_not_reachable():
    """A header over budget takes its details with it."""
    memories = [memory(1, "x" * 600, importance=90), memory(2), memory(3, "small")]
    result = run(memories, [composite(1, 1, 2)], budget=500)
    rows = rows_by_id(result)
    assert rows[1].reason == "over budget"
    assert (rows[2].reason, rows[2].reachable) == ("lazy detail", False)
    assert rows[3].injected
    assert (result.coverage.eligible, result.coverage.reachable) == (3, 1)


def test_a_detail_under_two_headers_is_reachable_from_either():
    """Membership is not exclusive: one injected header is enough."""
    memories = [memory(1, "x" * 600, importance=90), memory(2, "y"), memory(3, "shared")]
    result = run(memories, [composite(1, 1, 3), composite(2, 2, 3)], budget=500)
    rows = rows_by_id(result)
    assert rows[3].header_ids == (1, 2)
    assert rows[3].reachable and not rows[1].injected


def test_a_ring_of_headers_does_not_hang_and_stays_reachable():
    """Headers that detail one another: the best ranked competes, the rest hang under it."""
    memories = [memory(1, importance=40), memory(2, importance=80), memory(3, importance=60)]
    result = run(memories, [composite(1, 1, 2), composite(2, 2, 3), composite(3, 3, 1)])
    rows = rows_by_id(result)
    assert result.injected_ids == [2]
    assert rows[1].reason == rows[3].reason == "lazy detail"
    assert result.coverage.reachable == 3


def test_a_memory_in_its_own_composite_is_ignored_there():
    """A head listed among its own members is neither its own detail nor lazy."""
    result = run([memory(1), memory(2)], [composite(1, 1, 1, 2)])
    rows = rows_by_id(result)
    assert rows[1].injected and rows[1].detail_ids == (2,)
    assert rows[1].header_ids == ()


def test_members_and_heads_outside_the_given_memories_are_ignored():
    """A composite pointing at unknown ids changes nothing about the known ones."""
    result = run([memory(1), memory(2)], [composite(1, 1, 99), composite(2, 98, 2)])
    rows = rows_by_id(result)
    assert rows[1].detail_ids == () and rows[2].header_ids == ()
    assert rows[2].kind == "standalone" and rows[2].injected


def test_a_competitor_left_out_can_be_reached_through_another_ring():
    """A promoted ring member over budget is still reachable from an injected header."""
    memories = [
        memory(1, "x" * 600, importance=90),
        memory(2, importance=10),
        memory(3, "three", importance=80),
        memory(4, importance=10),
    ]
    composites = [composite(1, 1, 2), composite(2, 2, 1), composite(3, 3, 4, 1), composite(4, 4, 3)]
    result = run(memories, composites, budget=500)
    rows = rows_by_id(result)
    assert rows[1].order == 1 and rows[1].reason == "over budget"
    assert rows[3].injected
    assert rows[1].reachable and rows[2].reachable
    assert result.coverage.share == 1.0


def test_headers_mode_covers_a_fragmented_store_better_at_the_same_budget():
    """Short headers over long details reach more of the store than plugin mode does."""
    memories, composites = [], []
    for sop in range(8):
        head = 100 * (sop + 1)
        steps = [head + step for step in range(1, 7)]
        memories.append(memory(head, f"SOP {sop}: how to ship service {sop}", importance=70))
        memories += [
            memory(step, f"Step {step}: " + "run the long procedure carefully " * 4)
            for step in steps
        ]
        composites.append(composite(sop + 1, head, *steps))
    memories += [memory(i, f"standalone fact {i}", importance=60) for i in range(1, 6)]
    comparison = compare_modes(memories, composites, budget=1500, counter=CHARS, now_ms=NOW)
    plugin, headers = comparison.plugin.coverage, comparison.headers.coverage
    assert plugin.eligible == headers.eligible == len(memories)
    assert headers.share == 1.0
    assert headers.share > plugin.share
    assert comparison.coverage_gain == headers.share - plugin.share
    assert comparison.headers.used_tokens <= 1500 and comparison.plugin.used_tokens <= 1500


def test_headers_mode_keeps_the_plugin_wire_format_for_plain_memories():
    """Without composites, headers mode injects exactly what plugin mode does."""
    memories = [memory(i, f"fact {i}", category=("NAMING", "OPS")[i % 2]) for i in range(1, 9)]
    comparison = compare_modes(memories, budget=500, counter=CHARS, now_ms=NOW)
    assert comparison.headers.rendered == comparison.plugin.rendered
    assert comparison.headers.coverage == comparison.plugin.coverage
