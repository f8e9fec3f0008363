"""Families of small memories: one category's memories about the same subject, grouped.

Within each category, the memories' words are weighed with scikit-learn's
``TfidfVectorizer`` (words and word pairs held by two memories or more, English stop words out), and grouped by SciPy's
average-linkage clustering on cosine distance, cut at ``DISTANCE``: a family's members share
more of their weighty words with each other than with the rest. A family has at least
``MIN_MEMBERS`` and at most ``MAX_MEMBERS`` members (a larger one is cut again, tighter,
until its parts fit). Its subject is the phrase most of its members open with ("request
timeout"), else the weightiest words most of them share.

A large category is first partitioned (scikit-learn's ``MiniBatchKMeans``, seeded) into
parts of about ``PART_SIZE`` before the clustering, which is quadratic in its input.
"""

from collections import Counter
from collections.abc import Sequence

import numpy as np

from .drafting import short_line
from .model import MAX_MEMBERS

MIN_MEMBERS = 3
DISTANCE = 0.85
TIGHTER = 0.1
PART_SIZE = 1500
SUBJECT_TERMS = 2
SHARED_BY = 0.5
OPENING_WORDS = 8


def families(
    texts: Sequence[str],
    *,
    least: int = MIN_MEMBERS,
    phrase: bool = True,
    distance: float = DISTANCE,
    common: float = 1.0,
) -> list[tuple[list[int], str]]:
    """Return the families among these texts: (their indexes, in order, and the subject).

    Deterministic: the same texts give the same families, in the order of their first member.
    A family has at least ``least`` members; its subject is the phrase most members open with
    (unless ``phrase`` is False: the themes of `suggest` are named by weighty words alone).
    Words held by more than the ``common`` share of the texts are left out.
    """
    if len(texts) < least:
        return []
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(
        stop_words="english",
        ngram_range=(1, 2),
        sublinear_tf=True,
        min_df=2,  # a word only one memory holds says nothing of what it shares
        max_df=common,  # nor one nearly all hold (for themes: the services named everywhere)
        token_pattern=r"(?u)\b[a-zA-Z][a-zA-Z0-9_\-]+\b",
    )
    try:
        weights = vectorizer.fit_transform(texts)
    except ValueError:  # nothing but stop words
        return []
    terms = vectorizer.get_feature_names_out()
    found = []
    for part in _parts(weights):
        for group in _cluster(weights, part, distance, least):
            opening = _shared_phrase([texts[i] for i in group]) if phrase else ""
            subject = opening or _subject(weights, terms, group)
            found.append((sorted(group), subject))
    found.sort(key=lambda family: family[0][0])
    return found


def _parts(weights) -> list[list[int]]:
    """Return the row indexes cut into parts small enough to cluster."""
    count = weights.shape[0]
    if count <= PART_SIZE:
        return [list(range(count))]
    from sklearn.cluster import MiniBatchKMeans

    clusters = max(2, round(count / PART_SIZE))
    labels = MiniBatchKMeans(n_clusters=clusters, random_state=0, n_init=3).fit_predict(weights)
    return [np.flatnonzero(labels == label).tolist() for label in range(clusters)]


def _cluster(weights, rows: list[int], distance: float, least: int) -> list[list[int]]:
    """Return the groups of ``rows`` within ``distance``, each cut again until it fits."""
    if len(rows) < least:
        return []
    # The rows are unit vectors (TfidfVectorizer's norm): cosine similarity is their sparse
    # product, far cheaper than a distance over dense rows of the whole vocabulary. A row
    # with no shared word (all zeros) is 1 away from everything. Computed once per part; a
    # group cut again reads its block of it.
    part = weights[rows]
    square = np.clip(1.0 - np.asarray((part @ part.T).todense()), 0.0, 1.0)
    np.fill_diagonal(square, 0.0)
    groups = _groups(square, list(range(len(rows))), distance, least)
    return [[rows[i] for i in group] for group in groups]


def _groups(square, members: list[int], distance: float, least: int) -> list[list[int]]:
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    block = square[np.ix_(members, members)]
    tree = linkage(squareform(block, checks=False), method="average")
    labels = fcluster(tree, t=distance, criterion="distance")
    groups = []
    for label in sorted(set(labels.tolist())):
        group = [members[i] for i in np.flatnonzero(labels == label)]
        if len(group) < least:
            continue
        if len(group) <= MAX_MEMBERS:
            groups.append(group)
        elif distance > TIGHTER:
            groups.extend(_groups(square, group, distance - TIGHTER, least))
        else:  # near-identical texts beyond the limit: in order, MAX_MEMBERS at a time
            groups.extend(
                chunk
                for start in range(0, len(group), MAX_MEMBERS)
                if len(chunk := group[start : start + MAX_MEMBERS]) >= least
            )
    return groups


def _shared_phrase(texts: list[str]) -> str:
    """Return the longest run of words (three at most) that opens most members' first
    sentences ("request timeout" of "api-gateway request timeout: 30 s"), or ""."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    holders: Counter = Counter()
    for text in texts:
        words = short_line(text, OPENING_WORDS).rstrip("…").lower().split()
        grams = {
            " ".join(words[start : start + size])
            for size in (3, 2, 1)
            for start in range(len(words) - size + 1)
        }
        holders.update(
            gram
            for gram in grams
            if gram.split()[0] not in ENGLISH_STOP_WORDS
            and gram.split()[-1] not in ENGLISH_STOP_WORDS
        )
    needed = max(2, SHARED_BY * len(texts))
    held = [(count, len(gram.split()), gram) for gram, count in holders.items() if count >= needed]
    if not held:
        return ""
    _, _, phrase = max(held)  # held by the most, then the longest
    return phrase[:1].upper() + phrase[1:]


def _subject(weights, terms, group: list[int]) -> str:
    """Return what the members are about: the phrase most of them hold (a word pair before a
    word, the weightier first), then a second one that does not repeat it."""
    rows = weights[group]
    holders = np.asarray((rows > 0).sum(axis=0)).ravel()
    weight = np.asarray(rows.sum(axis=0)).ravel()
    words = np.array([len(str(term).split()) for term in terms])
    shared = holders >= max(2, SHARED_BY * len(group))
    order = np.lexsort((-weight, -words, -holders))  # most holders, then pairs, then weight
    chosen: list[str] = []
    for index in order:
        if not shared[index] or len(chosen) == SUBJECT_TERMS:
            break
        term = str(terms[index])
        if any(set(term.split()) & set(kept.split()) for kept in chosen):
            continue
        chosen.append(term)
    return ", ".join(chosen) if chosen else "related memories"
