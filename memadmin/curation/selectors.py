"""Read a project's near-duplicate clusters, theme suggestions and a memory's related ones.

Clusters are made at read time from the analysis's kept pairs, at the thresholds asked for,
so tuning a threshold never needs the analysis run again. Only rewordings (one fact said
twice) make clusters; variants (the same sentence about another thing) are listed apart, as
alike, and never offered to archive.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError

from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.rewording import REWORDING, VARIANT, Comparison, compare
from memadmin.core.worddiff import DiffOp, word_diff
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .analysis import CANDIDATE_FLOOR, EMBEDDING_THRESHOLD, LEXICAL_THRESHOLD
from .grouping import Cluster, Pair, clusters_of, common_words
from .models import BLOCK_SIZE, Analysis, RelatedBlock

HEADER_PREFIX = "Theme: "


@dataclass(frozen=True)
class Thresholds:
    """The similarity a pair needs, per measure, to count as a near-duplicate."""

    lexical: float = LEXICAL_THRESHOLD
    embedding: float = EMBEDDING_THRESHOLD

    def __post_init__(self):
        for kind in ("lexical", "embedding"):
            value = getattr(self, kind)
            if not CANDIDATE_FLOOR[kind] <= value <= 1:
                raise ValidationError(
                    f"The {kind} threshold must be between {CANDIDATE_FLOOR[kind]} and 1, "
                    f"not {value}."
                )

    def admits(self, similarity: float, kind: str) -> bool:
        """Return True when a pair this similar by this measure is a near-duplicate."""
        return kind == "exact" or similarity >= getattr(self, kind)


@dataclass(frozen=True)
class PairView:
    """One pair of a cluster as a page shows it: both memories and the words that differ."""

    first: Memory
    second: Memory
    similarity: float
    kind: str
    diff: list[DiffOp]
    comparison: Comparison


@dataclass(frozen=True)
class ClusterView:
    """A cluster with its memories loaded, for a page."""

    number: int
    cluster: Cluster
    memories: list[Memory]
    pairs: list[PairView]

    @property
    def categories(self) -> list[str]:
        """Return the categories the cluster's memories are in (a merge needs just one)."""
        return sorted({memory.category for memory in self.memories})

    @property
    def ids_query(self) -> dict[str, list[int]]:
        """Return the query naming the cluster's memories, as the merge and group pages read it."""
        return {"ids": [memory.pk for memory in self.memories]}


@dataclass(frozen=True)
class Suggestion:
    """Related memories no composite holds together yet, with a proposed head and header."""

    memories: list[Memory]
    head: Memory
    header_text: str
    words: list[str]

    @property
    def ids_query(self) -> dict[str, list[int]]:
        """Return the query naming the group's memories, as the group page reads it."""
        return {"ids": [memory.pk for memory in self.memories]}


def _admitted(analysis: Analysis | None, thresholds: Thresholds, relation: str) -> list[Pair]:
    """Return the analysis's pairs of this relation at these thresholds (ids are memory pks).

    A pair kept without a relation (an analysis of an older shape) is no rewording.
    """
    if analysis is None:
        return []
    return [
        Pair(first, second, similarity, kind)
        for first, second, similarity, kind, *rest in analysis.pairs
        if (rest[0] if rest else VARIANT) == relation and thresholds.admits(similarity, kind)
    ]


def duplicate_clusters(analysis: Analysis | None, thresholds: Thresholds) -> list[Cluster]:
    """Return the cliques of rewordings at these thresholds (ids are memory pks)."""
    return clusters_of(_admitted(analysis, thresholds, REWORDING))


def alike_pairs(analysis: Analysis | None, thresholds: Thresholds) -> list[Pair]:
    """Return the variant pairs at these thresholds, most similar first: alike, two facts.

    A pair found by both measures is listed once, by its higher similarity.
    """
    listed: dict[tuple[int, int], Pair] = {}
    for pair in sorted(
        _admitted(analysis, thresholds, VARIANT), key=lambda p: (-p.similarity, p.first, p.second)
    ):
        listed.setdefault((pair.first, pair.second), pair)
    return list(listed.values())


def pair_views(pairs: Sequence[Pair]) -> list[PairView]:
    """Return the pairs with their memories, word diff and comparison (one query)."""
    memories = Memory.objects.select_related("project").in_bulk(
        {pk for pair in pairs for pk in (pair.first, pair.second)}
    )
    return [
        _pair_view(pair, memories[pair.first], memories[pair.second])
        for pair in pairs
        if pair.first in memories and pair.second in memories
    ]


def _pair_view(pair: Pair, first: Memory, second: Memory) -> PairView:
    return PairView(
        first=first,
        second=second,
        similarity=pair.similarity,
        kind=pair.kind,
        diff=word_diff(first.content, second.content),
        comparison=compare(first.content, second.content, same_meaning=pair.kind == "embedding"),
    )


def clusters_json(project: Project, clusters: Sequence[Cluster]) -> dict:
    """Return the clusters as `manage.py duplicates --json` prints them."""
    return {
        "project": project.identity,
        "clusters": [
            {"ids": list(c.members), "similarity": round(c.similarity, 4), "kind": c.kind}
            for c in clusters
        ],
    }


def cluster_views(clusters: Sequence[Cluster], *, first_number: int = 1) -> list[ClusterView]:
    """Return the clusters with their memories and each pair's word diff (one query)."""
    wanted = {pk for cluster in clusters for pk in cluster.members}
    memories = Memory.objects.select_related("project").in_bulk(wanted)
    views = []
    for number, cluster in enumerate(clusters, start=first_number):
        if not all(pk in memories for pk in cluster.members):
            continue  # a memory deleted since the analysis
        pairs = [
            _pair_view(pair, memories[pair.first], memories[pair.second]) for pair in cluster.pairs
        ]
        views.append(
            ClusterView(
                number=number,
                cluster=cluster,
                memories=[memories[pk] for pk in cluster.members],
                pairs=pairs,
            )
        )
    return views


def _composite_sets(project: Project) -> list[set[int]]:
    """Return the memories of each of the project's composites, head included (two queries)."""
    sets = {
        pk: {head}
        for pk, head in Composite.objects.filter(project=project).values_list("pk", "head_id")
    }
    for composite_id, member_id in CompositeMember.objects.filter(
        composite__project=project
    ).values_list("composite_id", "member_id"):
        sets.setdefault(composite_id, set()).add(member_id)
    return list(sets.values())


def proposed_head(memories: Sequence[Memory]) -> Memory:
    """Return the memory to head a theme: the most important, the oldest among equals."""
    return max(memories, key=lambda m: (m.importance or 0, -m.pk))


def header_text(memories: Sequence[Memory]) -> tuple[str, list[str]]:
    """Return a new header memory's text prefilled from the memories' common words."""
    words = common_words([memory.content for memory in memories])
    if not words:
        return "", []
    return HEADER_PREFIX + ", ".join(words) + ".", words


def theme_suggestions(analysis: Analysis | None, project: Project) -> list[Suggestion]:
    """Return the analysis's theme groups that no composite of the project covers yet.

    A group is covered when one composite holds all of its live memories. Archived or
    deleted memories leave their group; a group left with fewer than two is dropped.
    """
    if analysis is None or not analysis.themes:
        return []
    wanted = {pk for group in analysis.themes for pk in group}
    live = Memory.objects.filter(project=project, pk__in=wanted).exclude(
        status=Memory.Status.ARCHIVED
    )
    memories = live.in_bulk()
    covered = _composite_sets(project)
    suggestions = []
    for group in analysis.themes:
        members = [memories[pk] for pk in group if pk in memories]
        ids = {m.pk for m in members}
        if len(members) < 2 or any(ids <= held for held in covered):
            continue
        text, words = header_text(members)
        suggestions.append(
            Suggestion(memories=members, head=proposed_head(members), header_text=text, words=words)
        )
    return suggestions


def related_memories(memory: Memory) -> list[dict]:
    """Return the memory's nearest others (live ones), each with the composites it shares.

    Each item: `memory`, `similarity`, `kind` and `shared` (composites holding both). Six
    queries at most, whatever the project's size.
    """
    block = (
        RelatedBlock.objects.filter(project_id=memory.project_id, block=memory.pk // BLOCK_SIZE)
        .values_list("neighbours", flat=True)
        .first()
    )
    neighbours = (block or {}).get(str(memory.pk), [])
    if not neighbours:
        return []
    order = [pk for pk, _, _ in neighbours]
    found = (
        Memory.objects.filter(pk__in=order)
        .exclude(status=Memory.Status.ARCHIVED)
        .only("id", "upstream_id", "content", "category", "status", "importance")
        .in_bulk()
    )
    if not found:
        return []
    shared = _shared_composites(memory, found.keys())
    return [
        {"memory": found[pk], "similarity": similarity, "kind": kind, "shared": shared.get(pk, [])}
        for pk, similarity, kind in neighbours
        if pk in found
    ]


def _shared_composites(memory: Memory, others) -> dict[int, list[Composite]]:
    """Return, for each of `others`, the composites holding it and `memory` (four queries)."""
    mine = set(Composite.objects.filter(head=memory).values_list("pk", flat=True)) | set(
        CompositeMember.objects.filter(member=memory).values_list("composite_id", flat=True)
    )
    if not mine:
        return {}
    composites = Composite.objects.in_bulk(mine)
    held = {pk: {composite.head_id} for pk, composite in composites.items()}
    for composite_id, member_id in CompositeMember.objects.filter(
        composite_id__in=mine
    ).values_list("composite_id", "member_id"):
        held[composite_id].add(member_id)
    shared: dict[int, list[Composite]] = {}
    for pk in sorted(others):
        for composite_id in sorted(mine):
            if pk in held[composite_id]:
                shared.setdefault(pk, []).append(composites[composite_id])
    return shared
