"""Properties every assembly keeps, and plugin mode against a literal transcription of upstream."""

import math
from functools import cmp_to_key

from hypothesis import given, settings
from hypothesis import strategies as st

from memadmin.core.ledger import LedgerComposite, LedgerMemory, assemble
from memadmin.core.ledger.ordering import _sorted_by_arrays, selection_order
from memadmin.core.ledger.render import counted_lines, memory_line

NOW = 1_700_000_000_000
FIVE = ["PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "CONFIG_VALUES", "NAMING"]


class HeuristicCounter:
    """Upstream's fallback: ``ceil(length / 3.5)`` over UTF-16 code units (subadditive)."""

    name = "heuristic"

    def count(self, text: str) -> int:
        return math.ceil(len(text.encode("utf-16-le")) // 2 / 3.5)


class WordCounter:
    """One token per whitespace-separated word (additive over newline joins)."""

    name = "words"

    def count(self, text: str) -> int:
        return len(text.split())


class HeavyCounter:
    """Ten tokens per character, so small stores overflow the budget (additive)."""

    name = "heavy"

    def count(self, text: str) -> int:
        return 10 * len(text)


COUNTERS = [HeuristicCounter(), WordCounter(), HeavyCounter()]

texts = st.text(
    alphabet=st.sampled_from(list("ab &<>\"' xyz\U0001f600é"))
    | st.characters(blacklist_categories=("Cs",)),
    max_size=80,
)
categories = st.sampled_from([*FIVE, "OPS_RULES", "alpha", 'Q"&<x>', "\uff21", "\U0001f600"])
times = st.none() | st.integers(min_value=0, max_value=50)


@st.composite
def stores(draw):
    """Draw memories with unique ids and composites over those ids."""
    ids = draw(st.lists(st.integers(min_value=1, max_value=400), unique=True, max_size=25))
    memories = [
        LedgerMemory(
            id=memory_id,
            category=draw(categories),
            content=draw(texts),
            status=draw(st.sampled_from(["active", "active", "permanent", "archived"])),
            importance=draw(st.none() | st.sampled_from([1, 50, 50, 80, 100])),
            expires_at=draw(st.none() | st.sampled_from([NOW - 1, NOW, NOW + 1])),
            superseded_by=draw(st.none() | st.just(999)),
            last_seen_at=draw(times),
            verified_at=draw(times),
            updated_at=draw(st.integers(min_value=0, max_value=5)),
            source_name=draw(st.none() | st.just("") | texts),
        )
        for memory_id in ids
    ]
    composites = []
    if ids:
        for composite_id in range(draw(st.integers(min_value=0, max_value=8))):
            members = draw(st.lists(st.sampled_from(ids), max_size=6))
            head = draw(st.sampled_from(ids))
            composites.append(LedgerComposite(composite_id, "theme", head, tuple(members)))
    return memories, composites


assemblies = st.fixed_dictionaries(
    {
        "store": stores(),
        # Mostly tight budgets, so that skipping happens often.
        "budget": st.integers(min_value=500, max_value=1500)
        | st.integers(min_value=500, max_value=20000),
        "counter": st.sampled_from(COUNTERS),
        "mode": st.sampled_from(["plugin", "headers"]),
        "tie_break": st.sampled_from(["recent", "id"]),
    }
)


def run(case):
    memories, composites = case["store"]
    return assemble(
        memories,
        composites,
        budget=case["budget"],
        counter=case["counter"],
        mode=case["mode"],
        now_ms=NOW,
        tie_break=case["tie_break"],
    )


@settings(max_examples=100, deadline=None)
@given(assemblies)
def test_no_assembly_exceeds_its_budget(case):
    """The accounted total stays within budget and bounds the rendered block's real count."""
    result = run(case)
    assert result.used_tokens <= result.budget
    assert case["counter"].count(result.rendered) <= result.used_tokens
    assert (result.rendered == "") == (result.used_tokens == 0)


@settings(max_examples=100, deadline=None)
@given(assemblies)
def test_the_account_adds_up(case):
    """Rows, category totals and the total agree, and every memory has one row."""
    memories, _ = case["store"]
    result = run(case)
    assert sorted(row.memory_id for row in result.rows) == sorted(m.id for m in memories)
    injected = [row for row in result.rows if row.injected]
    assert all(row.reason is None for row in injected)
    assert all(row.reason is not None for row in result.rows if not row.injected)
    if injected:
        assert result.used_tokens == result.wrapper_tokens + sum(result.by_category.values())
        assert sum(row.tokens for row in injected) == sum(result.by_category.values())
        assert injected[-1].running_total == result.used_tokens
    competitors = [row for row in result.rows if row.order is not None]
    assert [row.order for row in competitors] == list(range(1, len(competitors) + 1))
    assert result.rows[: len(competitors)] == competitors
    coverage = result.coverage
    assert coverage.eligible == sum(
        row.reason in (None, "over budget", "lazy detail") for row in result.rows
    )
    assert coverage.injected == len(injected) <= coverage.reachable <= coverage.eligible
    assert coverage.reachable == sum(row.reachable for row in result.rows)


@settings(max_examples=100, deadline=None)
@given(assemblies)
def test_headers_mode_leaves_every_eligible_memory_competing_or_lazy(case):
    """In headers mode an eligible memory either competes or hangs under a header."""
    case = {**case, "mode": "headers"}
    for row in run(case).rows:
        if row.reason in (None, "over budget"):
            assert row.order is not None
        elif row.reason == "lazy detail":
            assert row.header_ids and row.order is None


# A literal transcription of upstream's TypeScript, comparator for comparator.


def upstream_selection_compare(tie_break):
    def recency(memory):
        known = [value for value in (memory.last_seen_at, memory.verified_at) if value is not None]
        return max(known) if known else None

    def compare(left, right):
        if left.status == "permanent" and right.status != "permanent":
            return -1
        if right.status == "permanent" and left.status != "permanent":
            return 1
        left_importance = -math.inf if left.importance is None else left.importance
        right_importance = -math.inf if right.importance is None else right.importance
        importance_diff = right_importance - left_importance  # NaN when both are missing
        if importance_diff != 0:
            return importance_diff  # cmp_to_key, like JavaScript, treats NaN as a tie
        if tie_break == "recent":
            left_recency, right_recency = recency(left), recency(right)
            if left_recency != right_recency:
                if right_recency is None:
                    return -1
                if left_recency is None:
                    return 1
                return right_recency - left_recency
        return left.id - right.id

    return compare


def js_code_units(text):
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def upstream_render_compare(left, right):
    left_priority = FIVE.index(left.category) if left.category in FIVE else -1
    right_priority = FIVE.index(right.category) if right.category in FIVE else -1
    if left_priority >= 0 or right_priority >= 0:
        if left_priority < 0:
            return 1
        if right_priority < 0:
            return -1
        if left_priority != right_priority:
            return left_priority - right_priority
    elif left.category != right.category:
        return -1 if js_code_units(left.category) < js_code_units(right.category) else 1
    return left.id - right.id


def escape_xml_content(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_xml_attr(text):
    return escape_xml_content(text).replace('"', "&quot;").replace("'", "&apos;")


def upstream_line(memory):
    source = f" [{escape_xml_content(memory.source_name)}]" if memory.source_name else ""
    return f"#{memory.id}{source}: {escape_xml_content(memory.content)}"


def upstream_injection(memories, budget, counter, tie_break):
    """Return (selected ids, rendered block) the way magic-context computes them."""
    rows = [
        memory
        for memory in memories
        if memory.status in ("active", "permanent")
        and (memory.expires_at is None or memory.expires_at > NOW)
    ]
    rows.sort(key=lambda memory: (memory.category, -memory.updated_at, memory.id))
    rows.sort(key=cmp_to_key(upstream_selection_compare(tie_break)))
    used = counter.count("<project-memory>\n</project-memory>")
    seen, selected = set(), []
    for memory in rows:
        cost = counter.count(upstream_line(memory) + "\n")
        if memory.category not in seen:
            tag = escape_xml_attr(memory.category)
            cost += counter.count(f"<{tag}>\n</{tag}>\n")
        if used + cost > budget:
            continue
        used += cost
        seen.add(memory.category)
        selected.append(memory)
    if not selected:
        return [], ""
    lines, open_category = ["<project-memory>"], None
    for memory in sorted(selected, key=cmp_to_key(upstream_render_compare)):
        if memory.category != open_category:
            if open_category is not None:
                lines.append(f"</{escape_xml_attr(open_category)}>")
            open_category = memory.category
            lines.append(f"<{escape_xml_attr(open_category)}>")
        lines.append(upstream_line(memory))
    lines.append(f"</{escape_xml_attr(open_category)}>")
    lines.append("</project-memory>")
    return [memory.id for memory in selected], "\n".join(lines)


@settings(max_examples=200, deadline=None)
@given(assemblies)
def test_plugin_mode_matches_a_literal_transcription_of_upstream(case):
    """Same selection, same order, same bytes as upstream's own comparators and loop."""
    memories, _ = case["store"]
    case = {**case, "mode": "plugin"}
    result = run(case)
    expected_ids, expected_block = upstream_injection(
        memories, case["budget"], case["counter"], case["tie_break"]
    )
    assert result.injected_ids == expected_ids
    assert result.rendered == expected_block


@given(stores())
def test_bulk_and_single_lines_agree(store):
    """``counted_lines`` renders each memory exactly as ``memory_line`` does, plus a newline."""
    memories, _ = store
    assert counted_lines(memories, {}) == [
        memory_line(m.id, m.content, m.source_name) + "\n" for m in memories
    ]


huge = st.integers(min_value=-(2**70), max_value=2**70)


@st.composite
def wide_memories(draw, huge=huge):
    """Draw candidates whose ids, times and importances are integers of any size and sign."""
    ids = draw(st.lists(huge, unique=True, max_size=30))
    return [
        LedgerMemory(
            id=memory_id,
            category=draw(st.sampled_from(["A", "B"])),
            content="",
            status=draw(st.sampled_from(["active", "permanent"])),
            importance=draw(st.none() | huge | st.sampled_from([-5, 0, 7])),
            expires_at=None,
            superseded_by=None,
            last_seen_at=draw(st.none() | huge | st.sampled_from([-1, 0, 3])),
            verified_at=draw(st.none() | huge | st.sampled_from([-1, 0, 3])),
            updated_at=draw(huge | st.sampled_from([0, 1])),
        )
        for memory_id in ids
    ]


@settings(max_examples=200, deadline=None)
@given(wide_memories(), st.sampled_from(["recent", "id"]))
def test_selection_order_matches_upstreams_comparator_for_any_integers(memories, tie_break):
    """The packed sort keys order exactly as the comparator does, whatever the magnitudes."""
    expected = sorted(memories, key=lambda memory: (memory.category, -memory.updated_at, memory.id))
    expected.sort(key=cmp_to_key(upstream_selection_compare(tie_break)))
    assert selection_order(memories, tie_break) == expected


@settings(max_examples=200, deadline=None)
@given(wide_memories(st.integers(-(2**53) + 1, 2**53 - 1)), st.sampled_from(["recent", "id"]))
def test_array_selection_order_matches_upstreams_comparator(memories, tie_break):
    """Numbers a float64 holds exactly are sorted as arrays, in the comparator's order."""
    expected = sorted(memories, key=lambda memory: (memory.category, -memory.updated_at, memory.id))
    expected.sort(key=cmp_to_key(upstream_selection_compare(tie_break)))
    by_arrays = _sorted_by_arrays(memories, tie_break)
    assert by_arrays is not None
    assert by_arrays == expected


def test_numbers_a_float64_would_round_are_sorted_exactly():
    """Past 2**53 the arrays are not trusted: the packed integers sort those memories."""
    memories = [
        LedgerMemory(memory_id, "A", "", "active", 1, None, None, seen, None, 0)
        for memory_id, seen in ((1, 2**60), (2, 2**60 + 1))
    ]
    assert _sorted_by_arrays(memories, "recent") is None
    assert [memory.id for memory in selection_order(memories, "recent")] == [2, 1]
