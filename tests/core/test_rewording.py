"""Rewordings (one fact said twice) are told from variants (one sentence about other things)."""

import pytest

from memadmin.core.rewording import DISTINCT, REWORDING, VARIANT, compare


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Restart the scheduler after a DNS TTL change in eu-west.",
            "After a DNS TTL change in eu-west, restart the scheduler.",
        ),
        (
            "Rotate the TLS keys of the edge every 90 days.",
            "Every 90 days rotate the edge TLS keys.",
        ),
        ("Always remove stale locks before a migration.", "Delete stale locks before migrations."),
        ("The billing worker restarts nightly.", "Restart the billing worker nightly."),
        ("Same text.", "same text"),
    ],
)
def test_a_rewording_states_one_fact(first, second):
    """Reordered clauses, function words, inflections and interchangeable verbs: one fact."""
    found = compare(first, second)
    assert found.relation == REWORDING, found.why
    assert found.is_rewording


@pytest.mark.parametrize(
    ("first", "second", "differing"),
    [
        (
            "Feature flags are read from Consul in staging.",
            "Feature flags are read from Consul in canary.",
            ("staging", "canary"),
        ),
        (
            "The payments service retries a failed webhook 3 times.",
            "The payments service retries a failed webhook 5 times.",
            ("3", "5"),
        ),
        (
            "Logs go to /var/log/api.",
            "Logs go to /var/log/worker.",
            ("var/log/api", "var/log/worker"),
        ),
        ("Pin redis to v6.2 in production.", "Pin redis to v7.0 in production.", ("v6.2", "v7.0")),
        ("Deploy on Fridays.", "Don't deploy on Fridays.", ((), ())),
        ("Cache the sessions.", "Cache the sessions in staging.", ((), ("staging",))),
    ],
)
def test_a_variant_is_the_same_sentence_about_another_thing(first, second, differing):
    """Another environment, number, path, version, a negation or a qualifier: two facts."""
    found = compare(first, second)
    assert found.relation == VARIANT, found.why
    assert not found.is_rewording
    if isinstance(differing[0], str):
        assert (found.only_first, found.only_second) == ((differing[0],), (differing[1],))


def test_a_shared_padding_does_not_make_one_fact():
    """Two different rules behind the same long preamble are distinct facts."""
    padding = "Agreed at the March architecture review, applies to every team and repository: "
    found = compare(
        padding + "table names use snake_case plurals.",
        padding + "the billing gateway is called from background jobs only.",
    )
    assert found.relation == DISTINCT, found.why


def test_the_differing_words_are_shown_as_each_text_spells_them():
    """`only_first` and `only_second` carry the texts' own words, for highlighting."""
    found = compare("Mirror the Staging bucket nightly.", "Mirror the Canary bucket nightly.")
    assert (found.only_first, found.only_second) == (("staging",), ("canary",))


def test_an_embedding_match_in_other_words_is_a_paraphrase():
    """Found by vectors, texts sharing few words are one fact; a shared frame still is not."""
    first, second = "Only signed requests reach the API.", "The API accepts signed calls alone."
    assert compare(first, second).relation == DISTINCT
    assert compare(first, second, same_meaning=True).relation == REWORDING
    padding = "Agreed at the March architecture review, applies to every team and repository: "
    framed = (padding + "table names use snake_case plurals.", padding + "queues carry schemas.")
    assert compare(*framed, same_meaning=True).relation == DISTINCT
    negated = ("Deploy on Fridays.", "Never deploy on Fridays.")
    assert compare(*negated, same_meaning=True).relation == VARIANT
