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
    return set(memory_search(Memory.objects.all(), query).values_list("content", flat=True))


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
    ranked = list(memory_list(text="deploy").values_list("content", flat=True))
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
