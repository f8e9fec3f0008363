"""Read the header map of a project, in three queries whatever its size.

Token sizes use magic-context's fallback counter, `ceil(UTF-16 length / 3.5)`
(`memadmin.core.tokens.HeuristicCounter`): exact for that counter, fast enough to size every
live memory on each request, and independent of whether the claude encoding is set up.
The ledger is the place for exact claude counts.
"""

from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.ledger.model import LedgerComposite
from memadmin.core.tokens import HeuristicCounter
from memadmin.memories.models import Memory, Project

from .tree import HeaderMap, MapMemory

LIVE = (Memory.Status.ACTIVE, Memory.Status.PERMANENT)
FETCH_CHUNK = 2000  # rows per fetch: Django's default of 100 costs more than the rows themselves


def header_map(project: Project) -> HeaderMap:
    """Return the map of the project's live memories and its composites."""
    count = HeuristicCounter().count
    rows = (
        Memory.objects.filter(project=project, status__in=LIVE)
        .order_by()  # the map sorts what it needs: sorting 100,000 rows here is wasted
        .values_list("id", "upstream_id", "category", "content")
        .iterator(chunk_size=FETCH_CHUNK)
    )
    # A generator: the map keeps the memories as columns, each tuple lives for one row.
    memories = (
        MapMemory(pk, pk if upstream_id is None else upstream_id, category, content, count(content))
        for pk, upstream_id, category, content in rows
    )
    members: dict[int, list[int]] = {}
    for composite_id, member_id in (
        CompositeMember.objects.filter(composite__project=project)
        .order_by("composite_id", "position", "id")
        .values_list("composite_id", "member_id")
        .iterator(chunk_size=FETCH_CHUNK)
    ):
        members.setdefault(composite_id, []).append(member_id)
    composites = [
        LedgerComposite(id=pk, type=type, head_id=head_id, member_ids=tuple(members.get(pk, ())))
        for pk, type, head_id in Composite.objects.filter(project=project)
        .order_by()
        .values_list("id", "type", "head_id")
        .iterator(chunk_size=FETCH_CHUNK)
    ]
    return HeaderMap(memories, composites)
