"""Read the header map of a project, in three queries whatever its size.

Token sizes use magic-context's fallback counter, `ceil(UTF-16 length / 3.5)`
(`memadmin.core.tokens.HeuristicCounter`): exact for that counter, independent of whether
the claude encoding is set up, and stored for each memory by the database's triggers
(`memadmin.memories.sizes`), so the page's totals read numbers only. The ledger is the
place for exact claude counts.

The page reads the whole map's graph and sizes, and the text of the nodes it shows. Its fragments read the graph over the live memories' ids
(`MapGraph`) and the text of what they show only: a node's details and what lies below
them (`header_map_below`), a page of one category's memories no header reaches
(`unreached_memories`).
"""

from collections.abc import Collection, Iterator, Sequence

from django.db import connection

from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.store_markers import store_markers
from memadmin.core.ledger.model import LedgerComposite
from memadmin.core.process_cache import ProcessCache
from memadmin.core.tokens import HeuristicCounter
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .tree import HeaderMap, MapGraph, MapMemory

LIVE = (Memory.Status.ACTIVE, Memory.Status.PERMANENT)
FETCH_CHUNK = 2000  # rows per fetch: Django's default of 100 costs more than the rows themselves


def _live(project: Project):
    # The map sorts what it needs: sorting 100,000 rows here is wasted.
    return Memory.objects.filter(project=project, status__in=LIVE).order_by()


def _batches(project: Project, ids: Collection[int]):
    """Return querysets of the project's live memories of `ids`, as few as the database allows."""
    ids = sorted(ids)
    limit = connection.features.max_query_params  # None: no limit
    size = max(len(ids), 1) if limit is None else limit - 3  # the project, the statuses
    return [_live(project).filter(id__in=ids[at : at + size]) for at in range(0, len(ids), size)]


def _sized_memories(project: Project) -> Iterator[MapMemory]:
    """Yield every live memory with its stored size and no text (read later, as shown)."""
    rows = _live(project).values_list("id", "upstream_id", "category", "size__tokens")
    for pk, upstream_id, category, tokens in rows.iterator(chunk_size=FETCH_CHUNK):
        display_id = pk if upstream_id is None else upstream_id
        yield MapMemory(pk, display_id, category, "", tokens or 0)


def _texts(project: Project):
    """Return a reader of the texts of the project's live memories, by id."""

    def read(ids: Collection[int]) -> dict[int, str]:
        texts: dict[int, str] = {}
        for batch in _batches(project, ids):
            texts.update(batch.values_list("id", "content").iterator(chunk_size=FETCH_CHUNK))
        return texts

    return read


def _map_memories(project: Project, ids: Collection[int] | None = None) -> Iterator[MapMemory]:
    """Yield the project's live memories as the map shows them: all, or those of `ids`.

    `ids` are read in one query unless the database takes fewer parameters in one.
    """
    count = HeuristicCounter().count
    batches = [_live(project)] if ids is None else _batches(project, ids)
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


KEPT_MAPS = 2  # projects whose map a process keeps
header_maps: ProcessCache[HeaderMap] = ProcessCache("header maps", limit=KEPT_MAPS)  # by project


def header_map(project: Project) -> HeaderMap:
    """Return the map of the project's live memories and its composites.

    Sizes are the stored ones (`MemorySize`, kept by triggers): no text is read for the
    totals; the texts of the nodes a page shows are read when it asks (`HeaderMap.read_texts`).
    A process keeps the map while the store's markers stand still (one query to know).
    """
    # A generator: the map keeps the memories as columns, each tuple lives for one row.
    return header_maps.get(
        project.pk,
        store_markers(),
        lambda kept: HeaderMap(
            _sized_memories(project), _composites(project), texts=_texts(project)
        ),
    )


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
