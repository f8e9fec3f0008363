"""Read the header map of a project, in three queries whatever its size.

Token sizes use magic-context's fallback counter, `ceil(UTF-16 length / 3.5)`
(`memadmin.core.tokens.HeuristicCounter`): exact for that counter, fast enough to size every
live memory on each request, and independent of whether the claude encoding is set up.
The ledger is the place for exact claude counts.

The page reads the whole map. Its fragments read the graph over the live memories' ids
(`MapGraph`) and the text of what they show only: a node's details and what lies below
them (`header_map_below`), a page of one category's memories no header reaches
(`unreached_memories`).
"""

from collections.abc import Collection, Iterator, Sequence

from django.db import connection

from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.ledger.model import LedgerComposite
from memadmin.core.tokens import HeuristicCounter
from memadmin.memories.models import Memory, Project

from .tree import HeaderMap, MapGraph, MapMemory

LIVE = (Memory.Status.ACTIVE, Memory.Status.PERMANENT)
FETCH_CHUNK = 2000  # rows per fetch: Django's default of 100 costs more than the rows themselves


def _live(project: Project):
    # The map sorts what it needs: sorting 100,000 rows here is wasted.
    return Memory.objects.filter(project=project, status__in=LIVE).order_by()


def _map_memories(project: Project, ids: Collection[int] | None = None) -> Iterator[MapMemory]:
    """Yield the project's live memories as the map shows them: all, or those of `ids`.

    `ids` are read in one query unless the database takes fewer parameters in one.
    """
    count = HeuristicCounter().count
    if ids is None:
        batches = [_live(project)]
    else:
        ids = sorted(ids)
        limit = connection.features.max_query_params  # None: no limit
        size = max(len(ids), 1) if limit is None else limit - 3  # the project, the statuses
        batches = [
            _live(project).filter(id__in=ids[at : at + size]) for at in range(0, len(ids), size)
        ]
    for batch in batches:
        rows = batch.values_list("id", "upstream_id", "category", "content")
        for pk, upstream_id, category, content in rows.iterator(chunk_size=FETCH_CHUNK):
            display_id = pk if upstream_id is None else upstream_id
            yield MapMemory(pk, display_id, category, content, count(content))


def _composites(project: Project) -> list[LedgerComposite]:
    members: dict[int, list[int]] = {}
    for composite_id, member_id in (
        CompositeMember.objects.filter(composite__project=project)
        .order_by("composite_id", "position", "id")
        .values_list("composite_id", "member_id")
        .iterator(chunk_size=FETCH_CHUNK)
    ):
        members.setdefault(composite_id, []).append(member_id)
    return [
        LedgerComposite(id=pk, type=type, head_id=head_id, member_ids=tuple(members.get(pk, ())))
        for pk, type, head_id in Composite.objects.filter(project=project)
        .order_by()
        .values_list("id", "type", "head_id")
        .iterator(chunk_size=FETCH_CHUNK)
    ]


def header_map(project: Project) -> HeaderMap:
    """Return the map of the project's live memories and its composites."""
    # A generator: the map keeps the memories as columns, each tuple lives for one row.
    return HeaderMap(_map_memories(project), _composites(project))


def header_map_below(project: Project, memory_id: int) -> HeaderMap | None:
    """Return the map with the text read of what the memory's details show, None if not live.

    Its `details(memory_id)` are those of the whole map; nothing else of it is read.
    """
    live = set(_live(project).values_list("id", flat=True).iterator(chunk_size=FETCH_CHUNK))
    if memory_id not in live:
        return None
    graph = MapGraph(live, _composites(project))
    return HeaderMap(_map_memories(project, graph.shown_by_details(memory_id)), graph=graph)


class _UnreachedMemories(Sequence[MapMemory]):
    """Memories by id, read from the database a slice at a time (a paginator's page)."""

    def __init__(self, project: Project, ids: list[int]):
        self.project, self.ids = project, ids

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index : index + 1 or None][0]
        ids = self.ids[index]
        read = {memory.id: memory for memory in _map_memories(self.project, ids)} if ids else {}
        return [read[memory_id] for memory_id in ids if memory_id in read]  # none left since


def unreached_memories(project: Project, category: str) -> Sequence[MapMemory]:
    """Return the live memories of a category that no header reaches, by id, as the map does.

    Only their ids are read here; slicing the sequence (a page of it) reads those memories.
    """
    categories = dict(_live(project).values_list("id", "category").iterator(chunk_size=FETCH_CHUNK))
    graph = MapGraph(categories, _composites(project))
    ids = [memory_id for memory_id in graph.unreached if categories[memory_id] == category]
    return _UnreachedMemories(project, ids)
