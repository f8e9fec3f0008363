"""A prepared store patched for edited memories is the store a fresh preparation makes."""

from hypothesis import given, settings
from hypothesis import strategies as st

from memadmin.core.ledger import LedgerMemory, PreparedStore, assemble_prepared

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
