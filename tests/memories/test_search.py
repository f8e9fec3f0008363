"""Text search through the full-text index, on SQLite (FTS5) and PostgreSQL (tsvector)."""

import re

import pytest

from memadmin.memories.models import Memory
from memadmin.memories.search import memory_search, search_words
from memadmin.memories.selectors import memory_list
from memadmin.memories.services import memory_create, memory_update

pytestmark = pytest.mark.django_db

TEXTS = [
    "Deploy with `make release` on staging first.",
    "The deployment pipeline retries twice.",
    "Rollback: run the rollback script, then deploy again.",
    "Résumé of the naïve façade: 東京 データ cluster.",
    "Budget tokens for the ledger; header before detail.",
    "Retry the migration after a schema review.",
    "deploy deploy deploy",
]


@pytest.fixture
def texts(project):
    return [
        memory_create(project=project, category="OPS_RULES", content=text, actor="agent")
        for text in TEXTS
    ]


def expected_hits(query: str) -> set[str]:
    """Return the texts every word of the query starts a word of (the promise, in Python)."""
    words = search_words(query)
    return {
        text
        for text in TEXTS
        if all(any(w.startswith(q) for w in re.findall(r"[^\W_]+", text.casefold())) for q in words)
    }


def found(query: str) -> set[str]:
    return {memory.content for memory in memory_search(Memory.objects.all(), query)}


@pytest.mark.parametrize(
    "query",
    [
        "deploy",
        "DEPLOY",
        "rollback script",
        "retr",
        "résumé",
        "東京",
        "naïve",
        "ledger header",
        "zebra",
    ],
)
def test_a_query_word_finds_the_memories_with_a_word_it_starts(texts, query):
    """Each word matches the start of a word, case folded, accents kept; all are required."""
    assert found(query) == expected_hits(query)


def test_the_best_match_comes_first(texts):
    """A memory that is all the word ranks above one that mentions it once."""
    ranked = [memory.content for memory in memory_list(text="deploy")]
    assert ranked[0] == "deploy deploy deploy"
    assert set(ranked) == expected_hits("deploy")


def test_a_short_fragment_is_a_substring(texts):
    """Under three characters, the fragment is found anywhere, inside words too."""
    assert found("ep") == {text for text in TEXTS if "ep" in text.casefold()}
    assert found("  ") == set(TEXTS)  # nothing to look for: every memory


def test_the_index_follows_edits_and_deletions(texts):
    """An edited text is found by its new words only; a deleted memory is found no more."""
    memory_update(memory=texts[4], actor="agent", content="Quota of tokens per session.")
    assert found("quota") == {"Quota of tokens per session."} and found("ledger") == set()
    Memory.objects.filter(pk=texts[5].pk).delete()
    assert found("migration") == set()


def test_query_syntax_is_taken_as_words(texts):
    """Quotes, stars, operators and colons are not query syntax: only the words count."""
    for query in ['deploy" OR "x', "deploy*", "NOT deploy", "deploy:* | !x", "-deploy", "(deploy"]:
        assert found(query) == expected_hits(query), query


def test_the_list_page_shows_the_best_match_first(texts, client_as):
    """The page keeps the rank (by update it would come last of four)."""
    Memory.objects.filter(content="deploy deploy deploy").update(updated_at=1)
    page = client_as("viewer").get("/memories/?q=deploy").content.decode()
    assert "4 memories" in page
    assert page.index("deploy deploy deploy") < page.index("Deploy with")
    assert page.index("deploy deploy deploy") < page.index("deployment pipeline")


def test_a_sorted_column_replaces_the_rank(texts, client_as):
    """`?sort=` orders the hits by that column; the hits stay the same."""
    for importance, memory in enumerate(texts):
        Memory.objects.filter(pk=memory.pk).update(importance=importance + 1)
    page = client_as("viewer").get("/memories/?q=deploy&sort=-importance").content.decode()
    order = [page.index(text) for text in ("deploy deploy deploy", "Rollback:", "Deploy with")]
    assert order == sorted(order)


@pytest.fixture
def many(project, mc_project):
    """Forty memories holding "deploy" as often as their number says, in two projects."""
    made = []
    for n in range(1, 41):
        words = " ".join(["deploy"] * (n % 7 + 1) + ["filler"] * (n % 5))
        made.append(
            memory_create(
                project=mc_project if n % 9 == 0 else project,
                category="OPS_RULES" if n % 9 else "NAMING",
                content=f"Fact {n}: {words}.",
                actor="agent",
            )
        )
    return made


@pytest.mark.parametrize("which", ["few", "most"])
def test_a_filtered_search_ranks_as_the_whole_store_ranks(many, mc_project, which):
    """The filtered hits come in the order of the whole store's ranking, sliced alike.

    "few": four hits of forty pass (the slice ranks the filtered hits); "most": the index's
    best hits are checked against the filter.
    """
    whole = [memory.pk for memory in memory_search(Memory.objects.all(), "deploy")]
    assert len(whole) == 40
    if which == "few":
        memories = Memory.objects.filter(project=mc_project)
    else:
        memories = Memory.objects.exclude(project=mc_project)
    kept = set(memories.values_list("pk", flat=True))
    expected = [pk for pk in whole if pk in kept]
    search = memory_search(memories.select_related("project"), "deploy")
    assert search.count() == len(expected) == len(search)
    assert [memory.pk for memory in search] == expected
    for start, stop in ((0, 3), (2, 5), (3, 40), (30, 60)):
        assert [memory.pk for memory in search[start:stop]] == expected[start:stop]
    assert search[1].pk == expected[1]
    assert search[5:5] == [] and search[len(expected) :] == []
    with pytest.raises(IndexError):
        search[len(expected)]


def test_a_search_within_a_project_counts_and_pages_its_hits(many, project, client_as):
    """The list's project filter and the text search combine: its count, its best first."""
    page = client_as("viewer").get(f"/memories/?project={project.pk}&q=deploy").content.decode()
    in_project = Memory.objects.filter(project=project).count()
    assert f"{in_project} memories" in page
    # First, a fact of seven "deploy"s (n % 7 == 6); Fact 1 (twice) ranks under the first 25.
    assert int(re.search(r"Fact (\d+): ", page).group(1)) % 7 == 6
    assert "Fact 1: " not in page


def test_a_two_word_search_needs_both(many):
    """Every word of the query is required; each is a prefix."""
    hits = {memory.content for memory in memory_search(Memory.objects.all(), "fill depl")}
    assert hits == {memory.content for memory in many if "filler" in memory.content}


def test_a_search_is_kept_until_a_memory_is_written(texts, django_assert_num_queries):
    """The same search again reads the memories' state and the slice's rows, nothing more;
    an edited text or a changed status is searched afresh."""
    first = memory_list(text="deploy")
    assert first.count() == 4 and first[0].content == "deploy deploy deploy"
    again = memory_list(text="deploy")
    with django_assert_num_queries(2):
        assert again.count() == 4 and [m.content for m in again[:1]] == ["deploy deploy deploy"]
    memory_update(memory=texts[6], actor="agent", content="Ship it.")
    assert memory_list(text="deploy").count() == 3
    assert memory_list(text="deploy")[0].content != "Ship it."
    memory_update(memory=texts[0], actor="agent", status="archived")
    assert memory_list(text="deploy", status="live").count() == 2
