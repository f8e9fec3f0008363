"""A counter that keys memory lines by (id, content digest) costs exactly as one counting text.

`PreloadedCounter.count_memories` renders a memory's line only when its count is unknown;
the core then costs lines without rendering them (`PreparedStore.costs`, and a patched
store's `patching._patch_costs`). For any store (sources, escapes, unknown digests, headers
with details), in every mode, and after an edit patched in, the results must be those of the
plain counter given every line's text. No database: the counter starts knowing nothing and
keeps what it counts unsaved.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from memadmin.core.hashing import content_digest64
from memadmin.core.ledger import PreparedStore, assemble_prepared
from memadmin.ledger.count_cache import CountStore, PreloadedCounter
from tests.core.test_ledger_properties import COUNTERS, NOW, stores, texts


def with_digests(memories, known):
    """Give each memory its content digest where ``known`` says so (else None: unknown)."""
    known = [*known, *[True] * len(memories)]
    return [
        memory._replace(content_digest=content_digest64(memory.content) if keep else None)
        for memory, keep in zip(memories, known, strict=False)
    ]


def everything(store, counter, budget):
    return [
        assemble_prepared(store, budget=budget, counter=counter, mode=mode, tie_break=tie).to_json()
        for mode in ("headers", "plugin", "pack")
        for tie in ("recent", "id")
    ]


@settings(max_examples=150, deadline=None)
@given(
    stores(),
    st.lists(st.booleans(), max_size=25),
    st.sampled_from(COUNTERS),
    st.integers(min_value=500, max_value=3000),
    st.data(),
)
def test_lines_keyed_by_id_and_digest_cost_what_their_text_costs(
    store, known, counter, budget, data
):
    memories, composites = store
    memories = with_digests(memories, known)
    keyed = PreloadedCounter(counter, CountStore(counter), {})
    # The counter first knows the lines these memories have with no source (another
    # project's, say): a line with a source must not be taken for its plain line.
    plain = [memory._replace(source_name=None) for memory in memories]
    everything(PreparedStore(plain, composites, now_ms=NOW), keyed, budget)
    prepared = PreparedStore(memories, composites, now_ms=NOW)
    assert everything(prepared, keyed, budget) == everything(
        PreparedStore(memories, composites, now_ms=NOW), counter, budget
    )
    if not memories:
        return
    heads = [at for at, memory in enumerate(memories) if memory.id in prepared._suffixes]
    at = data.draw(
        st.sampled_from(heads) if heads else st.integers(min_value=0, max_value=len(memories) - 1)
    )
    content = data.draw(texts)
    edited = list(memories)
    digest = None if edited[at].content_digest is None else content_digest64(content)
    edited[at] = edited[at]._replace(content=content, content_digest=digest)
    patched = prepared.edited(edited, composites, now_ms=NOW)
    assert everything(patched, keyed, budget) == (
        everything(PreparedStore(edited, composites, now_ms=NOW), counter, budget)
    )
