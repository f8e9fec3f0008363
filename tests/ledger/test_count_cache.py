"""Token counts kept in the database: read in one query, written once, never wrong."""

import pytest
import xxhash
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.core.ledger import PreparedStore
from memadmin.core.tokens import HeuristicCounter
from memadmin.ledger.count_cache import (
    CountStore,
    cache_label,
    counts_for,
    forget_counts,
    text_keys,
)
from memadmin.ledger.counters import CounterChoice
from memadmin.ledger.models import TokenCount
from memadmin.ledger.selectors import ledger_inputs, ledger_preview

from .conftest import NOW

pytestmark = pytest.mark.django_db

HEURISTIC = HeuristicCounter()


class RecordingCounter:
    """The heuristic counter, remembering every text it was asked to count."""

    name = "heuristic"

    def __init__(self):
        self.texts = []

    def count(self, text: str) -> int:
        self.texts.append(text)
        return HEURISTIC.count(text)


def test_counts_are_loaded_in_one_query_and_saved_in_bulk():
    """A cold read misses, the counts are written, and a warm read finds them all."""
    texts = [f"text number {n}" for n in range(50)]
    with CaptureQueriesContext(connection) as queries:
        cold, store = counts_for(HEURISTIC, texts)
    assert len(queries) == 1
    assert [cold.count(text) for text in texts] == [HEURISTIC.count(text) for text in texts]
    assert store.save() == 50
    assert TokenCount.objects.filter(counter="heuristic").count() == 50
    forget_counts()  # a new process
    with CaptureQueriesContext(connection) as queries:
        warm, warm_store = counts_for(HEURISTIC, texts)
    assert len(queries) == 1
    assert [warm.count(text) for text in texts] == [HEURISTIC.count(text) for text in texts]
    assert warm_store.unsaved == 0


def test_a_process_reads_no_count_it_already_knows():
    """Counts read or made once are remembered by text: no query the next time."""
    texts = ["one text", "another text"]
    cached, store = counts_for(HEURISTIC, texts)
    for text in texts:
        cached.count(text)
    store.save()
    with CaptureQueriesContext(connection) as queries:
        again, again_store = counts_for(HEURISTIC, texts)
    assert len(queries) == 0
    assert [again.count(text) for text in texts] == [HEURISTIC.count(text) for text in texts]
    assert again_store.unsaved == 0


def test_a_stored_count_is_what_the_counter_answers():
    """The cache answers with the stored count for the counter and the text's key."""
    _store("hello", 99)
    cached, _ = counts_for(HEURISTIC, ["hello"])
    assert cached.count("hello") == 99


def test_counts_of_one_counter_are_not_read_for_another():
    """Counts are keyed by counter as well as text."""
    _store("hello", 99, "claude")
    cached, _ = counts_for(HEURISTIC, ["hello"])
    assert cached.count("hello") == HEURISTIC.count("hello")


class VersionedCounter(RecordingCounter):
    """A counter whose counts depend on the version of what it loads."""

    name = "claude"

    def __init__(self, version: str):
        super().__init__()
        self.version = version


def test_counts_of_one_counter_version_are_not_read_for_another():
    """A new version of the tokenizer counts afresh; the old version's counts stay apart."""
    old, new = VersionedCounter("1.0.6"), VersionedCounter("1.0.7")
    assert cache_label(old) == "claude@1.0.6" and cache_label(HEURISTIC) == "heuristic"
    _store("hello", 99, "claude@1.0.6")
    _store("hello", 98, "claude")
    assert counts_for(old, ["hello"])[0].count("hello") == 99
    cached, store = counts_for(new, ["hello"])
    assert cached.count("hello") == HEURISTIC.count("hello") and new.texts == ["hello"]
    assert store.save() == 1
    assert TokenCount.objects.get(counter="claude@1.0.7").count == HEURISTIC.count("hello")


def test_the_claude_counter_names_its_ai_tokenizer_version():
    """The claude counter's counts are stored under the ai-tokenizer version it loaded."""
    from memadmin.core.tokens import AI_TOKENIZER_VERSION, ClaudeCounter, CounterUnavailable

    try:
        counter = ClaudeCounter()
    except CounterUnavailable:
        pytest.skip("the claude counter is not set up here")
    assert cache_label(counter) == f"claude@{AI_TOKENIZER_VERSION}"


def test_text_keys_are_signed_64_bit_and_tell_texts_and_counters_apart():
    """Keys fit a signed 64-bit column, are stable, and differ for near texts and labels."""
    texts = ["", "a", "b", "a ", "é", "e\u0301", "\ud800", "\udc00", "🙂", "x" * 10_000]
    keys = text_keys("claude@1.0.6", texts)
    assert keys == [text_keys("claude@1.0.6", [text])[0] for text in texts]
    seed = xxhash.xxh3_64_intdigest(b"claude@1.0.6")
    assert keys == [  # the stored counts' keys: the same whatever else is keyed with a text
        xxhash.xxh3_64_intdigest(text.encode("utf-8", "surrogatepass"), seed) - 2**63
        for text in texts
    ]
    assert text_keys("claude@1.0.6", texts[:6]) == keys[:6]  # no lone surrogate among them
    assert len(set(keys)) == len(texts)
    assert all(-(2**63) <= key < 2**63 for key in keys)
    assert text_keys("heuristic", ["hello"]) == text_keys("heuristic", ["hel" + "lo"])
    assert text_keys("claude@1.0.6", ["hello"]) != text_keys("claude@1.0.7", ["hello"])


def test_saving_a_count_another_request_wrote_first_is_harmless():
    """Two previews counting the same text at once both succeed; one row is kept."""
    first = CountStore(HEURISTIC)
    second = CountStore(HEURISTIC)
    (key,) = text_keys(first.label, ["same"])
    first.keep(key, 2)
    second.keep(key, 2)
    assert first.save() == 1
    second.save()
    assert TokenCount.objects.count() == 1


def test_a_text_with_a_lone_surrogate_is_counted_and_stored():
    """A lone surrogate has no UTF-8, but it has a key: its count is kept like any other."""
    cached, store = counts_for(HEURISTIC, ["\ud800 broken"])
    assert cached.count("\ud800 broken") == HEURISTIC.count("\ud800 broken")
    assert store.save() == 1
    forget_counts()
    recorder = RecordingCounter()
    again, _ = counts_for(recorder, ["\ud800 broken"])
    assert again.count("\ud800 broken") == HEURISTIC.count("\ud800 broken")
    assert recorder.texts == []


def test_the_predicted_texts_are_every_text_an_assembly_counts(project, sop):
    """After one preview, a second counts nothing anew in either mode."""
    inputs = ledger_inputs(project)
    recorder = RecordingCounter()
    ledger_preview(project, budget=4000, counter=CounterChoice(recorder), now_ms=NOW)
    prepared = PreparedStore(inputs.memories, inputs.composites, now_ms=NOW)
    assert set(recorder.texts) <= set(prepared.texts())
    forget_counts()
    again = RecordingCounter()
    preview = ledger_preview(project, budget=4000, counter=CounterChoice(again), now_ms=NOW)
    assert again.texts == [] and preview.counted == 0


def test_a_warm_preview_reads_counts_in_one_query(project, sop):
    """Markers, memories, members, composites, workspace, unread values, pack and counts in a
    new process; the markers after.

    Pack and headers mode read the same ops-six rows, so they share one prepared store.
    """
    counter = CounterChoice(HEURISTIC)
    options = {"budget": 4000, "counter": counter, "now_ms": NOW, "modes": ("pack", "headers")}
    ledger_preview(project, **options)
    forget_counts()
    with CaptureQueriesContext(connection) as new_process:
        ledger_preview(project, **options)
    with CaptureQueriesContext(connection) as same_process:
        ledger_preview(project, **options)
    assert len(new_process) == 8 and len(same_process) == 1


def _store(text: str, count: int, label: str = "heuristic") -> None:
    (key,) = text_keys(label, [text])
    TokenCount.objects.create(key=key, counter=label, count=count)


def test_a_read_pairs_each_text_with_its_own_count():
    """Found and missing texts, in any order, each get their own count or None."""
    texts = [f"text {n}" for n in range(300)]
    expected = {text: n for n, text in enumerate(texts) if n % 3}
    for text, n in expected.items():
        _store(text, n)
    wanted = texts[::-1][:150] + texts[:150]
    with CaptureQueriesContext(connection) as queries:
        counts = CountStore(HEURISTIC).read(wanted)
    assert len(queries) == 1
    assert counts == [expected.get(text) for text in wanted]


def test_more_texts_than_an_engine_takes_parameters_are_read_in_one_query():
    """70,000 texts (PostgreSQL takes 65,535 parameters at most) cost one query."""
    texts = [f"text {n}" for n in range(70_000)]
    _store(texts[-1], 7)
    _store(texts[0], 8)
    with CaptureQueriesContext(connection) as queries:
        counts = CountStore(HEURISTIC).read(texts)
    assert len(queries) == 1
    assert counts[0] == 8 and counts[-1] == 7 and counts.count(None) == 69_998


def test_a_count_made_during_the_assembly_is_kept_once():
    """A text the cache does not know is counted, remembered by text and saved."""
    counter = RecordingCounter()
    cached, store = counts_for(counter, ["known"])
    cached.count("known")
    assert store.save() == 1
    texts = ["new", "known", "new"]
    assert cached.count_many(texts) == [HEURISTIC.count(text) for text in texts]
    assert counter.texts == ["known", "new"]
    assert store.save() == 1
