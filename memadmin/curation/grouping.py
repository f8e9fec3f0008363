"""Turn similar pairs into clusters and related neighbours into theme groups, as plain data.

A cluster is a group of memories every two of which are a near-duplicate pair (a clique),
found by complete-linkage clustering (SciPy's `linkage`): two groups merge only when every
member of one is a pair with every member of the other, the closest groups first. So a
chain (a like b, b like c, c unlike a) never makes one cluster, and a cluster's `similarity`
is its least similar pair. Nothing here knows about Django.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np

KIND_ORDER = ("exact", "lexical", "embedding")  # the order the measures are applied in
UNPAIRED = 2.0  # the distance of two items that are no pair (a pair's is 1 - similarity)
WORD = re.compile(r"\w{3,}", re.UNICODE)
COMMON_WORDS_MAX = 8


@dataclass(frozen=True, slots=True)
class Pair:
    """Two items (positions, `first` < `second`), how similar they are and by which measure."""

    first: int
    second: int
    similarity: float
    kind: str


@dataclass(frozen=True, slots=True)
class Cluster:
    """Items that say almost the same thing, the pairs joining them, and their weakest link."""

    members: tuple[int, ...]
    pairs: tuple[Pair, ...]
    similarity: float
    kind: str


class _Forest:
    """Union-find over positions, each root knowing its members."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def root(self, item: int) -> int:
        parent = self.parent.setdefault(item, item)
        while parent != item:
            self.parent[item] = self.parent.setdefault(parent, parent)
            item, parent = parent, self.parent[parent]
        return item

    def join(self, first: int, second: int) -> bool:
        """Join the two items' groups; return False when they were one group already."""
        a, b = self.root(first), self.root(second)
        if a == b:
            return False
        self.parent[max(a, b)] = min(a, b)
        return True


def clusters_of(pairs: Iterable[Pair]) -> list[Cluster]:
    """Return the cliques the pairs make, biggest and most similar first.

    A pair found by several measures counts once, by the first measure of `KIND_ORDER`.
    """
    best: dict[tuple[int, int], Pair] = {}
    for pair in pairs:
        key = (pair.first, pair.second)
        if key not in best or KIND_ORDER.index(pair.kind) < KIND_ORDER.index(best[key].kind):
            best[key] = pair
    forest = _Forest()
    for first, second in best:
        forest.join(first, second)
    components: dict[int, set[int]] = {}
    for first, second in best:
        components.setdefault(forest.root(first), set()).update((first, second))
    clusters = []
    for component in components.values():
        for members in _cliques(sorted(component), best):
            clusters.append(_cluster([best[key] for key in combinations(members, 2)]))
    clusters.sort(key=lambda c: (-len(c.members), -c.similarity, c.members))
    return clusters


def _cliques(members: list[int], pairs: dict[tuple[int, int], Pair]) -> list[tuple[int, ...]]:
    """Return the groups of two or more `members` in which every two are one of `pairs`."""
    if len(members) == 2:
        return [tuple(members)]
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    position = {item: n for n, item in enumerate(members)}
    distances = np.full((len(members), len(members)), UNPAIRED)
    np.fill_diagonal(distances, 0.0)
    for (first, second), pair in pairs.items():
        if first in position and second in position:
            i, j = position[first], position[second]
            distances[i, j] = distances[j, i] = 1.0 - pair.similarity
    # Complete linkage: a group's height is its farthest two members; below UNPAIRED, every
    # two of them are a pair.
    tree = linkage(squareform(distances, checks=False), method="complete")
    labels = fcluster(tree, t=(1.0 + UNPAIRED) / 2, criterion="distance")
    groups: dict[int, list[int]] = {}
    for item, group in zip(members, labels.tolist(), strict=True):
        groups.setdefault(group, []).append(item)
    return [tuple(group) for group in groups.values() if len(group) > 1]


def _cluster(pairs: list[Pair]) -> Cluster:
    """Return the cluster of a clique's pairs, named by its weakest."""
    members = sorted({p.first for p in pairs} | {p.second for p in pairs})
    weakest = min(pairs, key=lambda p: (p.similarity, -KIND_ORDER.index(p.kind)))
    kinds = {p.kind for p in pairs}
    return Cluster(
        members=tuple(members),
        pairs=tuple(pairs),
        similarity=weakest.similarity,
        kind="exact" if kinds == {"exact"} else weakest.kind,
    )


def theme_groups(
    neighbours: Sequence[Sequence[tuple[int, float]]],
    *,
    threshold: float,
    smallest: int = 3,
    largest: int = 12,
) -> list[tuple[int, ...]]:
    """Return groups of items joined by mutual neighbours at least `threshold` similar.

    `neighbours[i]` lists item i's nearest others as (position, similarity). Two items are
    joined when each is among the other's neighbours; a group outside `smallest`..`largest`
    members is left out (too small to be a theme, or too loose to be one).
    """
    near = [{other for other, similarity in row if similarity >= threshold} for row in neighbours]
    forest = _Forest()
    for item, others in enumerate(near):
        for other in others:
            if item < other and item in near[other]:
                forest.join(item, other)
    groups: dict[int, list[int]] = {}
    for item in list(forest.parent):
        groups.setdefault(forest.root(item), []).append(item)
    found = [tuple(sorted(g)) for g in groups.values() if smallest <= len(g) <= largest]
    return sorted(found, key=lambda g: (-len(g), g))


@cache
def _english_stop_words() -> frozenset[str]:
    """Return scikit-learn's English stop words, imported on first use.

    Importing scikit-learn (and SciPy with it) costs a web process some 100 MB, and the URLs
    import this module; only an analysis needs the words.
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return ENGLISH_STOP_WORDS


def common_words(texts: Sequence[str]) -> list[str]:
    """Return the words (3+ letters, no stop words) in at least half the texts, first seen first."""
    if not texts:
        return []
    stop_words = _english_stop_words()
    counts: dict[str, int] = {}
    order: list[str] = []
    for text in texts:
        for word in dict.fromkeys(w.lower() for w in WORD.findall(text)):
            if word in stop_words:
                continue
            if word not in counts:
                order.append(word)
            counts[word] = counts.get(word, 0) + 1
    needed = max(2, (len(texts) + 1) // 2)
    return [word for word in order if counts[word] >= needed][:COMMON_WORDS_MAX]
