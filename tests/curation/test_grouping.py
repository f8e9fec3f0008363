"""The pure parts: neighbours by text and by vector, clusters, theme groups, common words."""

import numpy as np

from memadmin.curation.grouping import Pair, clusters_of, common_words, theme_groups
from memadmin.curation.similarity import lexical_neighbours, vector_neighbours


def test_lexical_neighbours_rank_by_shared_rare_words():
    """The text sharing the most rare words comes first; texts sharing none are no neighbours."""
    texts = [
        "Restart the scheduler after a DNS TTL change.",
        "After a DNS TTL change, restart the scheduler.",
        "The scheduler runs nightly.",
        "Tabs are for tables only.",
    ]
    found = lexical_neighbours(texts, k=3, threshold=0.6, floor=0.0)
    assert found.index[0].tolist()[:2] == [1, 2]
    assert found.index[3].tolist() == [-1, -1, -1]
    assert [(i, j) for i, j, _ in found.pairs] == [(0, 1)]
    assert found.pairs[0][2] > 0.99


def test_stop_words_alone_are_nothing_in_common():
    """Texts made of stop words only have no neighbours and no pairs."""
    found = lexical_neighbours(["the of and", "and the of"], k=2, threshold=0.1, floor=0.0)
    assert found.pairs == [] and found.index.tolist() == [[-1, -1], [-1, -1]]


def test_vector_neighbours_use_the_cosine():
    """Vectors pointing the same way are nearest whatever their length."""
    vectors = np.array([[1, 0, 0], [10, 0.1, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    found = vector_neighbours(vectors, k=2, threshold=0.9)
    assert found.index[0][0] == 1
    assert [(i, j) for i, j, _ in found.pairs] == [(0, 1)]


def test_a_cluster_is_a_clique_reporting_its_least_similar_pair():
    """Three memories, every two a pair, form one cluster of its weakest pair's similarity."""
    [cluster] = clusters_of(
        [Pair(1, 2, 0.9, "lexical"), Pair(2, 3, 0.7, "embedding"), Pair(1, 3, 0.65, "lexical")]
    )
    assert cluster.members == (1, 2, 3)
    assert cluster.similarity == 0.65 and cluster.kind == "lexical"
    assert len(cluster.pairs) == 3


def test_a_chain_is_not_a_cluster():
    """1 like 2, 2 like 3, 3 like 4, but 1 unlike 3: no cluster holds two memories unlike."""
    chain = [Pair(n, n + 1, 0.9 - n / 100, "lexical") for n in range(1, 44)]
    clusters = clusters_of(chain)
    assert all(len(cluster.members) == 2 for cluster in clusters)
    assert [c.members for c in clusters][:2] == [(1, 2), (3, 4)]
    held = [member for cluster in clusters for member in cluster.members]
    assert len(held) == len(set(held))  # a memory is in one cluster at most


def test_complete_linkage_joins_the_closest_groups_first():
    """The closest pair is joined first; a group grows only by members paired with all of it."""
    pairs = [
        Pair(1, 2, 0.95, "lexical"),
        Pair(1, 3, 0.9, "lexical"),
        Pair(2, 3, 0.9, "lexical"),
        Pair(4, 5, 0.8, "lexical"),
        Pair(3, 4, 0.99, "lexical"),
    ]
    assert [c.members for c in clusters_of(pairs)] == [(3, 4), (1, 2)]


def test_a_pair_found_twice_counts_by_the_first_measure():
    """An exact pair also found lexically is an exact cluster."""
    [cluster] = clusters_of([Pair(1, 2, 1.0, "lexical"), Pair(1, 2, 1.0, "exact")])
    assert cluster.kind == "exact"


def test_theme_groups_need_mutual_neighbours():
    """Items join a group only when each lists the other; groups under three are left out."""
    neighbours = [
        [(1, 0.5), (2, 0.4)],
        [(0, 0.5), (2, 0.3)],
        [(0, 0.4), (1, 0.3)],
        [(0, 0.9)],  # 3 likes 0, 0 does not list 3
    ]
    assert theme_groups(neighbours, threshold=0.2) == [(0, 1, 2)]
    assert theme_groups(neighbours, threshold=0.45) == []


def test_common_words_are_those_in_half_the_texts():
    """Words (no stop words) in at least half the texts, in order of first appearance."""
    texts = ["Deploy the release train.", "The release train leaves.", "A train of thought."]
    assert common_words(texts) == ["release", "train"]
    assert common_words([]) == []
