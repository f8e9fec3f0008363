"""A prepared store patched for edited memories is the store a fresh preparation makes."""

from hypothesis import given, settings
from hypothesis import strategies as st

from memadmin.core.ledger import (
    LedgerMemory,
    PreparedStore,
    assemble_prepared,
    assemble_read,
    read_for_modes,
)
from memadmin.core.ledger.patching import read_rows_again
from memadmin.core.ledger.reader import CATEGORY_PRIORITY, read_rows_at

from .test_ledger_properties import COUNTERS, NOW, categories, stores, texts, times

EDITS = st.fixed_dictionaries(
    {},
    optional={
        "content": texts,
        "category": categories,
        "status": st.sampled_from(["active", "permanent", "archived"]),
        "importance": st.none() | st.sampled_from([1, 50, 80, 100]),
        "last_seen_at": times,
        "verified_at": times,
        "updated_at": st.integers(min_value=0, max_value=50),
        "expires_at": st.none() | st.sampled_from([NOW - 1, NOW + 1, NOW + 5]),
        "superseded_by": st.none() | st.just(999),
    },
)


def _used(store: PreparedStore, counter) -> None:
    """Fill every cache of the store: lines, orders, roots and costs of both modes."""
    for tie_break in ("recent", "id"):
        for mode in ("plugin", "headers"):
            assemble_prepared(store, budget=800, counter=counter, mode=mode, tie_break=tie_break)
    store.texts()


def _state(store: PreparedStore) -> dict:
    return {
        "memories": store.memories,
        "by_id": store.by_id,
        "members": store.index.members_of,
        "heads": store.index.heads_of,
        "candidates": store.candidates,
        "reasons": store.reasons,
        "ineligible": store.ineligible,
        "details": store.details,
        "lines": {mode: store.lines(mode) for mode in ("plugin", "headers")},
        "orders": {tie: store.selection(tie) for tie in ("recent", "id")},
        "roots": {tie: store.roots(tie) for tie in ("recent", "id")},
        "arranged": {
            (mode, tie): store.arranged(mode, tie)
            for mode in ("plugin", "headers")
            for tie in ("recent", "id")
        },
        "arranged costs": {
            (mode, tie): store.arranged_costs(counter, mode, tie)
            for mode in ("plugin", "headers")
            for tie in ("recent", "id")
            for counter in COUNTERS
        },
        "texts": store.texts(),
    }


@settings(max_examples=200, deadline=None)
@given(
    stores(),
    st.lists(st.tuples(st.integers(min_value=0, max_value=30), EDITS), max_size=4),
    st.sampled_from(COUNTERS),
    st.sampled_from([0, 1, 3]),
    st.integers(min_value=500, max_value=1500),
)
def test_an_edited_store_is_the_store_prepared_anew(store, edits, counter, later, budget):
    """Edits of any field, at any clock step: same state, same assembly in every mode."""
    memories, composites = store
    before = PreparedStore(memories, composites, now_ms=NOW)
    _used(before, counter)
    edited = list(memories)
    for at, fields in edits:
        if edited:
            position = at % len(edited)
            edited[position] = edited[position]._replace(**fields)
    now = NOW + later
    patched = before.edited(edited, composites, now_ms=now)
    fresh = PreparedStore(edited, composites, now_ms=now)
    assert _state(patched) == _state(fresh)
    for tie_break in ("recent", "id"):
        for mode in ("plugin", "headers"):
            options = {"budget": budget, "counter": counter, "mode": mode, "tie_break": tie_break}
            assert assemble_prepared(patched, **options) == assemble_prepared(fresh, **options)


def test_an_importance_edit_is_patched_not_prepared_anew():
    """One memory's importance moves: the old store's graph is kept, the order patched."""
    memories = [
        LedgerMemory(i, "PROJECT_RULES", f"fact {i}", "active", 50, None, None, i, None, 1)
        for i in range(1, 50)
    ]
    before = PreparedStore(memories, [], now_ms=NOW)
    _used(before, COUNTERS[0])
    edited = list(memories)
    edited[10] = edited[10]._replace(importance=90)
    after = before.edited(edited, [], now_ms=NOW)
    assert after.index is before.index
    assert after.selection("recent")[0].id == 11
    assert after.selection("recent") == PreparedStore(edited, [], now_ms=NOW).selection("recent")


def _reader_edits(importances: list) -> st.SearchStrategy:
    return st.fixed_dictionaries(
        {},
        optional={
            "content": texts,
            "category": categories,
            "status": st.sampled_from(["active", "permanent", "archived", "deleted"]),
            "importance": st.none() | st.sampled_from(importances),
            "scope": st.sampled_from([None, "project", "galaxy"]),
            "source_type": st.sampled_from([None, "historian", "agent"]),
            "last_seen_at": times,
            "expires_at": st.none() | st.sampled_from([NOW - 1, NOW + 1, NOW + 5]),
            "unread": st.sampled_from([(), (("seen_count", None),)]),
        },
    )


# Edits that change what the plugin's reader makes of a row: drops, defaults, liveness. An
# importance that is not a number ("high", as a store may hold) is the reader's to drop.
READER_EDITS = _reader_edits([1, 50, 80, "high"])
# The same edits within LedgerMemory's types (importance int | None): what every mode is
# given, headers mode included, which reads memadmin's typed rows and no plugin reader.
TYPED_EDITS = _reader_edits([1, 50, 80])


def _edited(memories, edits):
    edited = list(memories)
    for at, fields in edits:
        if edited:
            position = at % len(edited)
            edited[position] = edited[position]._replace(**fields)
    return edited


@settings(max_examples=200, deadline=None)
@given(
    stores(),
    st.lists(st.tuples(st.integers(min_value=0, max_value=30), READER_EDITS), max_size=4),
    st.sampled_from([0, 1, 3]),
    st.booleans(),
)
def test_a_reader_pass_patched_for_edits_is_the_pass_read_anew(store, edits, later, pack):
    """Kept rows, dropped rows and their positions: the same as reading every row again."""
    memories, _ = store
    categories = ("OPS_RULES", "PROJECT_RULES", "alpha") if pack else CATEGORY_PRIORITY
    options = {"categories": categories, "pack": pack}
    before = read_rows_again(None, memories, now_ms=NOW, **options)
    edited = _edited(memories, edits)
    now = NOW + later
    again = read_rows_again(before, edited, now_ms=now, **options)
    kept, dropped, skipped = read_rows_at(edited, now_ms=now, **options)
    assert (again.kept, list(again.dropped), again.skipped) == (kept, dropped, skipped)


@settings(max_examples=100, deadline=None)
@given(
    stores(),
    st.lists(st.tuples(st.integers(min_value=0, max_value=30), TYPED_EDITS), max_size=4),
    st.sampled_from(COUNTERS),
    st.sampled_from([0, 1, 3]),
    st.integers(min_value=500, max_value=1500),
)
def test_reads_patched_from_the_previous_ones_assemble_as_fresh_reads(
    store, edits, counter, later, budget
):
    """Each mode read with the previous reads given assembles as one read from scratch."""
    memories, composites = store
    modes = ("plugin", "headers", "pack")
    options = {"modes": modes, "pack_categories": ("PROJECT_RULES", "alpha")}
    previous = read_for_modes(memories, composites, now_ms=NOW, **options)
    for read in previous.values():
        _used(read.store, counter)
    edited = _edited(memories, edits)
    now = NOW + later
    patched = read_for_modes(edited, composites, now_ms=now, previous=previous, **options)
    fresh = read_for_modes(edited, composites, now_ms=now, **options)
    for mode in modes:
        assert patched[mode].dropped == fresh[mode].dropped
        assert patched[mode].store.memories == fresh[mode].store.memories
        for tie_break in ("recent", "id"):
            assert assemble_read(
                patched[mode], budget=budget, counter=counter, tie_break=tie_break
            ) == assemble_read(fresh[mode], budget=budget, counter=counter, tie_break=tie_break)


def test_an_edit_reads_only_the_edited_row_again():
    """One importance edit: the other kept rows are the very objects read before."""
    memories = [
        LedgerMemory(i, "PROJECT_RULES", f"fact {i}", "active", None, None, None, i, None, 1)
        for i in range(1, 50)
    ]
    before = read_rows_again(None, memories, categories=CATEGORY_PRIORITY, pack=False, now_ms=NOW)
    edited = list(memories)
    edited[10] = edited[10]._replace(importance=90)
    after = read_rows_again(before, edited, categories=CATEGORY_PRIORITY, pack=False, now_ms=NOW)
    assert after.kept[10].importance == 90
    assert all(after.kept[at] is before.kept[at] for at in range(49) if at != 10)
    assert before.kept[0].importance == 50  # the reader's default, applied once


@settings(max_examples=100, deadline=None)
@given(stores(), st.sampled_from([0, 1]))
def test_a_store_sharing_another_modes_lines_has_the_lines_it_would_render(store, later):
    """Lines taken from another mode's store are the lines the store renders on its own."""
    memories, composites = store
    reads = read_for_modes(
        memories,
        composites,
        modes=("plugin", "headers", "pack"),
        now_ms=NOW + later,
        pack_categories=("PROJECT_RULES", "alpha"),
    )
    for read in reads.values():
        alone = PreparedStore(read.store.memories, composites, now_ms=NOW + later)
        assert read.store.texts() == alone.texts()
        for mode in ("plugin", "headers"):
            assert read.store.lines(mode) == alone.lines(mode)


def test_the_headers_store_keeps_the_plugin_stores_lines_not_copies():
    """The reader fills in a default importance: two stores, one set of line strings."""
    memories = [
        LedgerMemory(i, "PROJECT_RULES", f"fact {i} é", "active", None, None, None, i, None, 1)
        for i in range(1, 20)
    ]
    reads = read_for_modes(memories, [], modes=("plugin", "headers"), now_ms=NOW)
    plugin, headers = reads["plugin"].store, reads["headers"].store
    assert plugin is not headers
    assert all(a is b for a, b in zip(plugin.lines("plugin"), headers.lines("plugin"), strict=True))
