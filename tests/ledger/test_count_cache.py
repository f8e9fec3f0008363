"""Token counts kept in the database: read in one query, written once, never wrong."""

import pytest
import xxhash
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.core.hashing import content_digest64
from memadmin.core.ledger import LedgerMemory, PreparedStore
from memadmin.core.ledger.render import category_tags_text, counted_lines, escape_content
from memadmin.core.process_cache import reset_process_caches
from memadmin.core.tokens import HeuristicCounter
from memadmin.ledger.count_cache import CountStore, cache_label, counts_for
from memadmin.ledger.count_keys import header_keys, line_keys, memory_keys, text_keys
from memadmin.ledger.counters import CounterChoice
from memadmin.ledger.inputs import ledger_inputs
from memadmin.ledger.models import TokenCount
from memadmin.ledger.selectors import ledger_preview
from memadmin.memories.services import memory_update

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
    reset_process_caches()  # a new process
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
    reset_process_caches()
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
    reset_process_caches()
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
    reset_process_caches()
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


def _line(memory_id: int, content: str) -> str:
    return f"#{memory_id}: {escape_content(content)}\n"


def test_a_line_is_keyed_by_id_and_digest_under_each_label_apart():
    """A plain line's key is a mix of the label, the id and the content digest: another
    label, id or digest gives another key; a memory with no digest or with a source is keyed
    by its line's text, as any text is."""
    ids, digests = [1, 2, 1, 2**62, -5], [7, 7, 8, -(2**63), 0]
    keys = line_keys("claude@1.0.6", ids, digests).tolist()
    assert len(set(keys)) == len(keys) and all(-(2**63) <= key < 2**63 for key in keys)
    assert keys == line_keys("claude@1.0.6", ids, digests).tolist()  # stable
    assert set(keys).isdisjoint(line_keys("claude@1.0.7", ids, digests).tolist())
    assert set(keys).isdisjoint(line_keys("heuristic", ids, digests).tolist())
    plain = LedgerMemory(12, "C", "a & b", "active", 50, None, None, 1, None, 1)
    with_digest = plain._replace(content_digest=content_digest64("a & b"))
    sourced = with_digest._replace(source_name="web>ui")
    assert memory_keys("heuristic", [plain, with_digest, sourced]).tolist() == [
        text_keys("heuristic", [_line(12, "a & b")])[0],
        line_keys("heuristic", [12], [content_digest64("a & b")])[0],
        text_keys("heuristic", [counted_lines([sourced], {})[0]])[0],
    ]


@pytest.fixture
def rendered(monkeypatch):
    """Record the ids of the memories whose line is rendered (with a suffix or not), anywhere."""
    from memadmin.core.ledger import patching, prepared, render
    from memadmin.ledger import count_cache

    ids: list[int] = []
    real = render.counted_lines

    def recording(memories, suffixes):
        memories = list(memories)
        ids.extend(memory.id for memory in memories)
        return real(memories, suffixes)

    for module in (prepared, patching, count_cache):
        monkeypatch.setattr(module, "counted_lines", recording)
    return ids


def test_a_warm_preview_renders_only_the_lines_it_injects(project, sop, remember, rendered):
    """A new process with every count stored: the counter counts nothing, no memory's line
    (a header's with its details included) is rendered but those injected, and the result is
    the cold one's, in every mode."""
    for n in range(40):
        filler = f"Filler memory {n} & <more>, 東京 🚀. " + "Words of padding. " * 10
        remember(filler, category="ENV_STATE", importance=10)
    options = {"budget": 500, "now_ms": NOW, "modes": ("plugin", "headers", "pack")}
    cold = ledger_preview(project, counter=CounterChoice(RecordingCounter()), **options)
    assert cold.counted > 40 and len(rendered) > 40
    reset_process_caches()
    rendered.clear()
    counter = RecordingCounter()
    warm = ledger_preview(project, counter=CounterChoice(counter), **options)
    assert counter.texts == [] and warm.counted == 0
    injected = {memory_id for result in warm.results.values() for memory_id in result.injected_ids}
    assert rendered and set(rendered) <= injected
    assert len(set(rendered)) < len(cold.inputs.memories) // 2
    assert {mode: result.to_json() for mode, result in warm.results.items()} == {
        mode: result.to_json() for mode, result in cold.results.items()
    }


def test_an_edited_memory_is_counted_anew_under_its_new_digest(project, sop, rendered):
    """An edit changes the content digest: the next preview (patched, same process) and a new
    process both count the new line, never the old count under a stale key."""
    options = {"budget": 4000, "now_ms": NOW, "modes": ("pack", "headers")}
    counter = RecordingCounter()  # the process keeps the first counter of its label
    ledger_preview(project, counter=CounterChoice(counter), **options)
    standalone = sop["standalone"]
    longer = "Deploys happen on weekdays, never on Fridays & holidays <strict>."
    memory_update(memory=standalone, actor="agent", content=longer)
    counter.texts.clear()
    patched = ledger_preview(project, counter=CounterChoice(counter), **options)
    line = f"#{standalone.pk}: {escape_content(longer)}\n"
    assert counter.texts == [line] and patched.counted == 1
    reset_process_caches()
    fresh_counter = RecordingCounter()
    fresh = ledger_preview(project, counter=CounterChoice(fresh_counter), **options)
    assert fresh_counter.texts == []  # stored by the patched preview, under the new key
    tags = HEURISTIC.count(category_tags_text("ENV_STATE"))  # its category's only memory
    for results in (patched.results, fresh.results):
        (row,) = [row for row in results["pack"].rows if row.memory_id == standalone.pk]
        assert row.tokens == HEURISTIC.count(line) + tags
    assert {m: r.to_json() for m, r in patched.results.items()} == {
        m: r.to_json() for m, r in fresh.results.items()
    }


def test_a_workspace_members_memory_is_counted_by_its_line_with_its_source(tmp_path):
    """Another member's memory renders with its source (` [web&gt;ui]`): its line is counted
    by its text, source and all, cold and warm alike, never by its id and digest."""
    from memadmin.interop.writing.services import context_db_sync
    from memadmin.projects.models import Project
    from tests.interop.workspace_store import NOW as TEAM_NOW
    from tests.interop.workspace_store import OPS, build_team_store

    context_db_sync(path=build_team_store(tmp_path / "context.db"))
    project = Project.objects.get(identity=OPS)
    options = {"budget": 20000, "now_ms": TEAM_NOW, "modes": ("plugin",)}
    counter = RecordingCounter()
    cold = ledger_preview(project, counter=CounterChoice(counter), **options)
    sourced = {text for text in counter.texts if text.startswith("#") and " [" in text[:30]}
    assert any("[web&gt;ui]: " in text for text in sourced)
    store = cold.reads["plugin"].store
    foreign = [memory for memory in store.memories if memory.source_name]
    assert foreign and all(memory.content_digest is not None for memory in foreign)
    ((_, costs),) = store._costs.values()  # the one mode's, by memory id
    for memory in foreign:
        assert costs[memory.id] == HEURISTIC.count(counted_lines([memory], {})[0])
    reset_process_caches()
    warm_counter = RecordingCounter()
    warm = ledger_preview(project, counter=CounterChoice(warm_counter), **options)
    assert warm_counter.texts == []
    assert warm.results["plugin"].to_json() == cold.results["plugin"].to_json()


def test_headers_mode_alone_counts_no_headers_plain_line(project, sop):
    """Headers mode costs a header by its line with its details: a cold headers-only preview
    counts that line, and not the header's plain one (plugin mode's), as before."""
    counter = RecordingCounter()
    ledger_preview(
        project, budget=4000, counter=CounterChoice(counter), now_ms=NOW, modes=("headers",)
    )
    header = sop["header"]
    assert _line(header.pk, header.content) not in counter.texts
    assert any(text.startswith(f"#{header.pk}: Release SOP") for text in counter.texts)
    assert len(counter.texts) == len(set(counter.texts))


def test_a_headers_line_is_keyed_by_its_plain_key_and_its_details():
    """A header's line with its details has its own key, another for other details; one with
    a source or no digest is keyed by its whole line's text."""
    header = LedgerMemory(3, "C", "SOP <x>", "active", 50, None, None, 1, None, 1)
    known = header._replace(content_digest=content_digest64("SOP <x>"))
    suffixes = {3: " (details: #4, #5)"}
    (plain,) = memory_keys("heuristic", [known]).tolist()
    (keyed,) = header_keys("heuristic", [known], suffixes).tolist()
    (other,) = header_keys("heuristic", [known], {3: " (details: #4)"}).tolist()
    assert len({plain, keyed, other}) == 3
    assert header_keys("claude@1.0.6", [known], suffixes).tolist() != [keyed]
    sourced = known._replace(source_name="web")
    assert header_keys("heuristic", [header, sourced, known], suffixes).tolist() == [
        *text_keys("heuristic", counted_lines([header, sourced], suffixes)),
        keyed,
    ]
