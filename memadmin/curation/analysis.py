"""Compute a project's near-duplicate pairs, related memories and theme groups, and keep them.

Three measures, in order: exact duplicates (the same normalized text in two categories),
lexical similarity (TF-IDF cosine, see `similarity`), and, for memories whose store holds a
usable embedding, the cosine of their vectors. Pairs are kept from `CANDIDATE_FLOOR` up, so
a page or command can cluster them at any threshold above it without computing again.
Each pair is kept with its relation (`memadmin.core.rewording`): a rewording (one fact said
twice) may be offered as a duplicate, a variant (the same sentence about another thing) or a
distinct pair never is. The result is current while the project's fingerprint (memory count,
newest change, highest id, and the same of its stored vectors) is unchanged.
"""

import time
from dataclasses import dataclass, field
from itertools import combinations, product

from django.db import transaction
from django.db.models import Count, Max

from memadmin.core.clock import now_ms
from memadmin.core.rewording import compare
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .embeddings import ProjectVectors, project_vectors
from .grouping import theme_groups
from .models import BLOCK_SIZE, Analysis, MemoryEmbedding, RelatedBlock
from .similarity import Neighbours, lexical_neighbours, vector_neighbours

LEXICAL_THRESHOLD = 0.6  # default: TF-IDF cosine of a near-duplicate pair
EMBEDDING_THRESHOLD = 0.9  # default: embedding cosine of a near-duplicate pair
CANDIDATE_FLOOR = {"lexical": 0.3, "embedding": 0.75}  # pairs kept for re-thresholding
RELATED_COUNT = 5
RELATED_FLOOR = 0.05  # a lexical neighbour must share at least a little text
THEME_THRESHOLD = {"lexical": 0.2, "embedding": 0.6}
PAIRS_KEPT = 200_000
EXACT_CLIQUE = 50  # copies of one text paired every two (beyond: each with the first)
BATCH = 2000
# The shape of the kept pairs: a result kept in an older shape is not current (pairs gained
# their relation in version 2).
PAIRS_VERSION = "2"


@dataclass
class Computed:
    """One analysis, in memadmin memory ids, before it is saved."""

    memories: int
    model_id: str
    pairs: list[list] = field(default_factory=list)  # [id, id, similarity, kind, relation]
    related: dict[int, list[list]] = field(default_factory=dict)  # id -> [[id, sim, kind]]
    themes: list[list[int]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def project_fingerprint(project: Project) -> str:
    """Return a value that changes whenever the project's memories or stored vectors change."""
    memories = Memory.objects.filter(project=project).aggregate(
        n=Count("id"), changed=Max("updated_at"), last=Max("id")
    )
    vectors = MemoryEmbedding.objects.filter(memory__project=project).aggregate(
        n=Count("id"), last=Max("id")
    )
    return ":".join(
        str(value or 0)
        for value in (
            PAIRS_VERSION,
            memories["n"],
            memories["changed"],
            memories["last"],
            vectors["n"],
            vectors["last"],
        )
    )


def _live_texts(project: Project) -> tuple[list[int], list[str], list[str]]:
    rows = (
        Memory.objects.filter(project=project)
        .exclude(status=Memory.Status.ARCHIVED)
        .order_by("id")
        .values_list("id", "content", "normalized_hash")
        .iterator(chunk_size=BATCH)
    )
    ids, texts, hashes = [], [], []
    for pk, content, digest in rows:
        ids.append(pk)
        texts.append(content)
        hashes.append(digest)
    return ids, texts, hashes


def _exact_pairs(ids: list[int], hashes: list[str]) -> list[list]:
    """Return every two memories of one normalized text as a pair, so copies make a clique.

    A group larger than `EXACT_CLIQUE` is paired with its first memory only (its pairs would
    grow as the square); the lexical pairs, similarity 1, join the rest.
    """
    groups: dict[str, list[int]] = {}
    for pk, digest in zip(ids, hashes, strict=True):
        groups.setdefault(digest, []).append(pk)
    pairs = []
    for group in groups.values():
        joined = (
            combinations(group, 2) if len(group) <= EXACT_CLIQUE else product(group[:1], group[1:])
        )
        pairs += [[first, second, 1.0, "exact"] for first, second in joined]
    return pairs


def _pairs(ids: list[int], found: Neighbours, kind: str) -> list[list]:
    return [[ids[i], ids[j], round(similarity, 4), kind] for i, j, similarity in found.pairs]


def _related(ids: list[int], found: Neighbours, kind: str) -> dict[int, list[list]]:
    related = {}
    for row, pk in enumerate(ids):
        related[pk] = [
            [ids[other], round(float(similarity), 4), kind]
            for other, similarity in zip(found.index[row], found.similarity[row], strict=True)
            if other >= 0
        ]
    return related


def analysis_compute(project: Project) -> Computed:
    """Return the project's pairs, related memories and theme groups (nothing is written)."""
    ids, texts, hashes = _live_texts(project)
    vectors: ProjectVectors = project_vectors(project)
    computed = Computed(memories=len(ids), model_id=vectors.model_id, notices=vectors.notices)
    if len(ids) < 2:
        return computed
    lexical = lexical_neighbours(
        texts, k=RELATED_COUNT, threshold=CANDIDATE_FLOOR["lexical"], floor=RELATED_FLOOR
    )
    computed.pairs = _exact_pairs(ids, hashes) + _pairs(ids, lexical, "lexical")
    computed.related = _related(ids, lexical, "lexical")
    position = {pk: row for row, pk in enumerate(ids)}
    neighbour_rows = [
        [(position[other], similarity) for other, similarity, _ in computed.related[pk]]
        for pk in ids
    ]
    themes = theme_groups(neighbour_rows, threshold=THEME_THRESHOLD["lexical"])
    if vectors.matrix is not None and not all(pk in position for pk in vectors.memory_ids):
        # a memory archived between the two reads: leave its vector out
        keep = [row for row, pk in enumerate(vectors.memory_ids) if pk in position]
        vectors = ProjectVectors(
            model_id=vectors.model_id,
            memory_ids=[vectors.memory_ids[row] for row in keep],
            matrix=vectors.matrix[keep],
            notices=vectors.notices,
        )
    if vectors.matrix is not None and len(vectors.memory_ids) > 1:
        semantic = vector_neighbours(
            vectors.matrix, k=RELATED_COUNT, threshold=CANDIDATE_FLOOR["embedding"]
        )
        computed.pairs += _pairs(vectors.memory_ids, semantic, "embedding")
        computed.related.update(_related(vectors.memory_ids, semantic, "embedding"))
        rows = [
            list(zip(semantic.index[row].tolist(), semantic.similarity[row].tolist(), strict=True))
            for row in range(len(vectors.memory_ids))
        ]
        if 2 * len(vectors.memory_ids) >= len(ids):  # most memories have a vector
            found = theme_groups(rows, threshold=THEME_THRESHOLD["embedding"])
            themes = [tuple(position[vectors.memory_ids[i]] for i in group) for group in found]
    computed.themes = [sorted(ids[i] for i in group) for group in themes]
    if len(computed.pairs) > PAIRS_KEPT:
        computed.notices.append(
            f"{len(computed.pairs)} similar pairs found: only the {PAIRS_KEPT} most similar kept."
        )
        computed.pairs = sorted(computed.pairs, key=lambda p: -p[2])[:PAIRS_KEPT]
    text_of = dict(zip(ids, texts, strict=True))
    for pair in computed.pairs:
        found = compare(text_of[pair[0]], text_of[pair[1]], same_meaning=pair[3] == "embedding")
        pair.append(found.relation)
    return computed


def analysis_save(
    *, project: Project, computed: Computed, fingerprint: str, duration_ms: int
) -> Analysis:
    """Replace the project's analysis and related memories with `computed`."""
    with transaction.atomic():
        analysis, _ = Analysis.objects.select_for_update().get_or_create(project=project)
        blocks: dict[int, dict[str, list]] = {}
        for pk, neighbours in computed.related.items():
            if neighbours:
                blocks.setdefault(pk // BLOCK_SIZE, {})[str(pk)] = neighbours
        RelatedBlock.objects.filter(project=project).delete()
        RelatedBlock.objects.bulk_create(
            (
                RelatedBlock(project=project, block=block, neighbours=neighbours)
                for block, neighbours in sorted(blocks.items())
            ),
            batch_size=100,
        )
        analysis.fingerprint = fingerprint
        analysis.state = Analysis.State.DONE
        analysis.finished_at = now_ms()
        analysis.duration_ms = duration_ms
        analysis.memories = computed.memories
        analysis.model_id = computed.model_id
        analysis.pairs = computed.pairs
        analysis.themes = computed.themes
        analysis.notices = computed.notices
        analysis.error = ""
        analysis.save()
    return analysis


def analysis_refresh(project: Project) -> Analysis:
    """Compute the project's analysis now and keep it, stamped with the fingerprint it saw."""
    started = time.perf_counter()
    fingerprint = project_fingerprint(project)
    computed = analysis_compute(project)
    duration = int((time.perf_counter() - started) * 1000)
    return analysis_save(
        project=project, computed=computed, fingerprint=fingerprint, duration_ms=duration
    )


def is_current(analysis: Analysis | None, project: Project) -> bool:
    """Return True when the analysis was computed from the project's memories as they are."""
    return (
        analysis is not None
        and analysis.state == Analysis.State.DONE
        and analysis.fingerprint == project_fingerprint(project)
    )
