"""Token counts kept in the database: read in one query, written once, never wrong."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.core.hashing import content_digest
from memadmin.core.tokens import HeuristicCounter
from memadmin.ledger.count_cache import StoredCounts, counts_for, forget_counts, ledger_texts
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
    assert len(queries) == 1 and len(warm_store) == 50
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
    """The cache answers with the stored count for the counter and digest."""
    TokenCount.objects.create(counter="heuristic", digest=content_digest("hello"), count=99)
    cached, _ = counts_for(HEURISTIC, ["hello"])
    assert cached.count("hello") == 99


def test_counts_of_one_counter_are_not_read_for_another():
    """Counts are keyed by counter as well as text."""
    TokenCount.objects.create(counter="claude", digest=content_digest("hello"), count=99)
    cached, _ = counts_for(HEURISTIC, ["hello"])
    assert cached.count("hello") == HEURISTIC.count("hello")


def test_saving_a_count_another_request_wrote_first_is_harmless():
    """Two previews counting the same text at once both succeed; one row is kept."""
    first = StoredCounts("heuristic")
    second = StoredCounts("heuristic")
    key = f"heuristic:{content_digest('same')}"
    first[key] = second[key] = 2
    first.save()
    second.save()
    assert TokenCount.objects.count() == 1


def test_a_text_without_a_digest_is_counted_and_not_stored():
    """A lone surrogate cannot be hashed; it is still counted."""
    cached, store = counts_for(HEURISTIC, ["\ud800 broken"])
    assert cached.count("\ud800 broken") == HEURISTIC.count("\ud800 broken")
    assert store.save() == 0


def test_the_predicted_texts_are_every_text_an_assembly_counts(project, sop):
    """After one preview, a second counts nothing anew in either mode."""
    inputs = ledger_inputs(project)
    recorder = RecordingCounter()
    ledger_preview(project, budget=4000, counter=CounterChoice(recorder), now_ms=NOW)
    assert set(recorder.texts) <= ledger_texts(inputs.memories, inputs.composites, now_ms=NOW)
    forget_counts()
    again = RecordingCounter()
    preview = ledger_preview(project, budget=4000, counter=CounterChoice(again), now_ms=NOW)
    assert again.texts == [] and preview.counted == 0


def test_a_warm_preview_reads_counts_in_one_query(project, sop):
    """Memories, composites and counts: four queries in a new process, three after."""
    counter = CounterChoice(HEURISTIC)
    ledger_preview(project, budget=4000, counter=counter, now_ms=NOW)
    forget_counts()
    with CaptureQueriesContext(connection) as new_process:
        ledger_preview(project, budget=4000, counter=counter, now_ms=NOW)
    with CaptureQueriesContext(connection) as same_process:
        ledger_preview(project, budget=4000, counter=counter, now_ms=NOW)
    assert len(new_process) == 4 and len(same_process) == 3


def test_a_read_pairs_each_digest_with_its_own_count():
    """Found and missing digests, in any order, each get their own count or None."""
    texts = [f"text {n}" for n in range(30)]
    for n, text in enumerate(texts[::2]):
        TokenCount.objects.create(counter="heuristic", digest=content_digest(text), count=n)
    digests = [content_digest(text) for text in reversed(texts)]
    with CaptureQueriesContext(connection) as queries:
        counts = StoredCounts("heuristic").read(digests)
    assert len(queries) == 1
    expected = {content_digest(text): n for n, text in enumerate(texts[::2])}
    assert counts == [expected.get(digest) for digest in digests]


def test_more_digests_than_an_engine_takes_parameters_are_read_in_one_query():
    """70,000 digests (PostgreSQL takes 65,535 parameters at most) cost one query."""
    digests = [content_digest(f"text {n}") for n in range(70_000)]
    TokenCount.objects.create(counter="heuristic", digest=digests[-1], count=7)
    store = StoredCounts("heuristic")
    with CaptureQueriesContext(connection) as queries:
        found = store.load(digests)
    assert len(queries) == 1 and found == 1
    assert store[f"heuristic:{digests[-1]}"] == 7 and len(store) == 1


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
