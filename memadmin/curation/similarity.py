"""Find each text's nearest neighbours and the pairs above a threshold, as plain data.

Nothing here knows about Django: it takes texts or vectors and returns positions into them.

- Lexical: scikit-learn's ``TfidfVectorizer`` over the texts' content words as
  `memadmin.core.rewording.content_words` reads them (function words left out, inflections
  undone, so "retried" and "retry" are one word; words in more than 1% of a large
  project's texts left out too; sublinear term frequency); the cosine of
  two texts is the product of their unit-length rows, and sparse_dot_topn multiplies the
  sparse matrix by its transpose keeping only each row's best few (in C++, on all CPUs),
  so 100,000 texts never need a dense 100,000² matrix.
- Embeddings: faiss's inner-product index over the L2-normalised vectors (so the score is
  the cosine): exact (``IndexFlatIP``) up to ``EXACT_LIMIT`` vectors; above it approximate:
  each vector is compared, in a 64-number PCA projection, with those of the nearest cells
  of an inverted file only, and the best candidates are re-ranked by their exact cosine.
"""

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memadmin.core.rewording import content_words

if TYPE_CHECKING:
    import faiss

# faiss, scikit-learn (with SciPy) and sparse_dot_topn are imported where they are used: at
# import time they add some 100 MB to every web process (the URLs import this module through
# the curation forms) and 3 s to its first request, though only an analysis needs them.

COMMON_SHARE = 0.01  # a term in more than this share of the texts carries no evidence...
COMMON_MIN = 200  # ...unless it is in no more than this many texts (small projects keep all)
EXACT_LIMIT = 20_000  # vectors compared exhaustively; above this, by inverted file
PROBE_CELLS = 4  # cells of the inverted file searched per vector
TRAINING_SAMPLE = 20_000  # vectors the inverted file learns its cells from
TRAINING_ROUNDS = 10  # k-means rounds placing the cells
RERANK_FACTOR = 4  # candidates per wanted neighbour re-ranked by their exact cosine
PAIR_CANDIDATES = 10  # most similar others of each item looked at for pairs
# Half the CPUs (at most 4): the analysis runs beside the web server, and OpenMP threads
# contending with other processes cost more time than they save (measured: 12 s with one
# thread against 23 s with two for 100,000 vectors on a busy 2-CPU machine).
THREADS = max(1, min(4, (os.cpu_count() or 2) // 2))


@dataclass(frozen=True, slots=True)
class Neighbours:
    """For each of n items, its k nearest others (positions, -1 where none) and the pairs.

    `pairs` holds (i, j, similarity) with i < j for every pair at or above the threshold
    asked for, each pair once.
    """

    index: np.ndarray
    similarity: np.ndarray
    pairs: list[tuple[int, int, float]]

    @classmethod
    def empty(cls, n: int, k: int) -> "Neighbours":
        """Return neighbours for n items that have none."""
        return cls(
            index=np.full((n, k), -1, dtype=np.int64),
            similarity=np.zeros((n, k), dtype=np.float32),
            pairs=[],
        )


def lexical_neighbours(
    texts: Sequence[str], *, k: int, threshold: float, floor: float
) -> Neighbours:
    """Return each text's k most similar others (similarity > `floor`) and the pairs >= threshold.

    A pair is found when one text is among the other's `PAIR_CANDIDATES` most similar.
    Texts sharing no term (after stop words) have similarity 0 and are nobody's neighbour.
    """
    n = len(texts)
    if n < 2:
        return Neighbours.empty(n, k)
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sparse_dot_topn import sp_matmul_topn

    vectorizer = TfidfVectorizer(
        analyzer=content_words,
        sublinear_tf=True,
        max_df=max(COMMON_MIN, int(COMMON_SHARE * n)) if n > COMMON_MIN else 1.0,
        dtype=np.float32,
    )
    try:
        matrix = vectorizer.fit_transform(texts).tocsr()
    except ValueError:  # no term at all survives: nothing in common
        return Neighbours.empty(n, k)
    # The vectorizer's rows have unit length, so their products are the cosines.
    found = sp_matmul_topn(
        matrix,
        matrix.T.tocsr(),
        top_n=max(k, PAIR_CANDIDATES) + 1,
        threshold=floor,
        sort=True,
        n_threads=THREADS,
    ).tocoo()
    return _neighbours(n, k, found.row, found.col, found.data, threshold)


def vector_neighbours(vectors: np.ndarray, *, k: int, threshold: float) -> Neighbours:
    """Return each vector's k nearest others by cosine and the pairs at or above threshold."""
    n = len(vectors)
    if n < 2:
        return Neighbours.empty(n, k)
    import faiss

    faiss.omp_set_num_threads(THREADS)
    data = np.ascontiguousarray(vectors, dtype=np.float32).copy()
    faiss.normalize_L2(data)
    dimensions = data.shape[1]
    searcher = faiss.IndexFlatIP(dimensions) if n <= EXACT_LIMIT else _inverted_file(data)
    searcher.add(data)
    found_sims, found = searcher.search(data, min(k + 1, n))
    rows = np.repeat(np.arange(n), found.shape[1])
    return _neighbours(n, k, rows, found.ravel(), found_sims.ravel(), threshold)


def _inverted_file(data: np.ndarray) -> "faiss.Index":
    """Return a trained approximate index: PCA to 64 numbers, inverted file, exact re-rank."""
    import faiss

    n, dimensions = data.shape
    reduced = min(64, dimensions)
    searcher = faiss.index_factory(
        dimensions, f"PCA{reduced},IVF{int(np.sqrt(n))},Flat,RFlat", faiss.METRIC_INNER_PRODUCT
    )
    sample = np.random.default_rng(0).choice(n, min(n, TRAINING_SAMPLE), replace=False)
    faiss.extract_index_ivf(searcher).cp.niter = TRAINING_ROUNDS
    searcher.train(data[np.sort(sample)])
    faiss.extract_index_ivf(searcher).nprobe = PROBE_CELLS
    searcher.k_factor = RERANK_FACTOR
    return searcher


def _neighbours(
    n: int, k: int, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, threshold: float
) -> Neighbours:
    """Return the neighbours of n items from (row, column, similarity) candidates."""
    rows, cols = rows.astype(np.int64), cols.astype(np.int64)
    keep = (cols >= 0) & (cols != rows)
    rows, cols = rows[keep], cols[keep]
    values = np.minimum(values[keep].astype(np.float32), 1.0)
    index = np.full((n, k), -1, dtype=np.int64)
    similarity = np.zeros((n, k), dtype=np.float32)
    _keep_top(index, similarity, rows, cols, values, k)
    wanted = values >= threshold
    seen = {
        (min(i, j), max(i, j)): v
        for i, j, v in zip(
            rows[wanted].tolist(), cols[wanted].tolist(), values[wanted].tolist(), strict=True
        )
    }
    return Neighbours(
        index=index, similarity=similarity, pairs=[(i, j, v) for (i, j), v in sorted(seen.items())]
    )


def _keep_top(
    index: np.ndarray,
    similarity: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    values: np.ndarray,
    k: int,
) -> None:
    """Write each row's k best (column, value) entries into `index` and `similarity`."""
    if not len(rows):
        return
    # One sort key: the row, then the best value first (values lie in 0..1).
    order = np.argsort(rows * 2.0 - values, kind="stable")
    rows, cols, values = rows[order], cols[order], values[order]
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    rank = np.arange(len(rows)) - np.repeat(starts, np.diff(np.r_[starts, len(rows)]))
    top = rank < k
    index[rows[top], rank[top]] = cols[top]
    similarity[rows[top], rank[top]] = values[top]
