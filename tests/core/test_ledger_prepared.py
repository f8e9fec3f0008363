"""A prepared store assembles as ``assemble`` does, counts each line once, and makes rows lazily."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memadmin.core.ledger import (
    LedgerComposite,
    LedgerMemory,
    LedgerRows,
    PreparedStore,
    assemble,
    assemble_prepared,
)

from .test_ledger_properties import COUNTERS, NOW, stores


class RecordingCounter:
    """One token per character, remembering every text it was asked to count."""

    name = "chars"

    def __init__(self):
        self.texts = []

    def count(self, text: str) -> int:
        self.texts.append(text)
        return len(text)


def memory(memory_id: int, **fields) -> LedgerMemory:
    values = {
        "category": "PROJECT_RULES",
        "content": f"fact {memory_id}",
        "status": "active",
        "importance": 50,
        "expires_at": None,
        "superseded_by": None,
        "last_seen_at": memory_id,
        "verified_at": None,
        "updated_at": 1_000,
    }
    values.update(fields)
    return LedgerMemory(id=memory_id, **values)


def small_store():
    memories = [memory(i) for i in range(1, 8)] + [memory(9, status="archived")]
    composites = [LedgerComposite(1, "sequence", 1, (2, 3)), LedgerComposite(2, "theme", 4, (1,))]
    return memories, composites


@settings(max_examples=100, deadline=None)
@given(
    stores(),
    st.sampled_from(COUNTERS),
    st.integers(min_value=500, max_value=1500),
    st.sampled_from(["recent", "id"]),
)
def test_a_prepared_store_assembles_as_assemble_does(store, counter, budget, tie_break):
    """Both modes, assembled from one prepared store, equal two separate assemblies.

    And the texts the store names for counting are each named once.
    """
    memories, composites = store
    prepared = PreparedStore(memories, composites, now_ms=NOW)
    texts = prepared.texts()
    assert len(texts) == len(set(texts))
    for mode in ("headers", "plugin"):
        options = {"budget": budget, "counter": counter, "mode": mode, "tie_break": tie_break}
        expected = assemble(memories, composites, now_ms=NOW, **options)
        assert assemble_prepared(prepared, **options) == expected


def test_the_texts_are_every_text_both_modes_count_and_each_is_counted_once():
    """``texts()`` names what the assemblies count; a second assembly counts only the wrapper and tags."""
    memories, composites = small_store()
    prepared = PreparedStore(memories, composites, now_ms=NOW)
    counter = RecordingCounter()
    for mode in ("plugin", "headers"):
        assemble_prepared(prepared, budget=4000, counter=counter, mode=mode)
    texts = prepared.texts()
    assert set(counter.texts) == set(texts) and len(texts) == len(set(texts))
    lines = [text for text in counter.texts if text.startswith("#")]
    assert len(lines) == len(set(lines))


def test_rows_are_made_on_demand_and_kept():
    """A row is made when first asked for, and the same object is handed out again."""
    memories, composites = small_store()
    result = assemble(
        memories, composites, budget=4000, counter=RecordingCounter(), mode="plugin", now_ms=NOW
    )
    rows = result.rows
    assert isinstance(rows, LedgerRows) and len(rows) == 8
    assert rows[0] is rows[0] and rows[-1] is rows[7]
    assert rows[-8] is rows[0]
    assert rows[1:3] == [rows[1], rows[2]]
    assert list(rows) == rows[:]
    with pytest.raises(IndexError):
        rows[8]
    with pytest.raises(IndexError):
        rows[-9]


def test_the_injected_ids_need_no_row():
    """The injected ids come from the admission, in selection order, as the rows say."""
    memories, composites = small_store()
    result = assemble(
        memories, composites, budget=4000, counter=RecordingCounter(), mode="headers", now_ms=NOW
    )
    assert result.injected_ids == [row.memory_id for row in result.rows if row.injected]
