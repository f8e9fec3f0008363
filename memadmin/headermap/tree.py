"""The header map as plain data: Proposal 3's two-layer map over memories and composites.

A memory that heads a composite is a header; the members of the composites it heads are
its details, in composite order (composites by id, members by position), each once. The
same graph the ledger's headers mode uses (`memadmin.core.ledger.graph`): only live
memories count, and a composite whose head is not live reaches nothing.

Layers, as the proposal names them: a header with another header among its details is a
*theme header*; any other header is a *category header*; a memory that heads nothing is a
*detail*. The roots are the headers no other header reaches (a ring of headers that only
reach one another is entered at its lowest id). Memories in no composite at all are the
ones no header reaches.

Every count is of distinct memories: a detail shared by two headers counts once under a
theme header above both.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import NamedTuple

from memadmin.core.ledger.graph import CompositeIndex, reach, top_level
from memadmin.core.ledger.model import LedgerComposite

THEME_HEADER, CATEGORY_HEADER, DETAIL = "theme header", "category header", "detail"


class MapMemory(NamedTuple):
    """A live memory as the map shows it: its ids, category, text and token size.

    A named tuple: the map reads every live memory of a project, up to 100,000, per request.
    """

    id: int
    display_id: int
    category: str
    content: str
    tokens: int


@dataclass(frozen=True, slots=True)
class MapNode:
    """A memory in the map, with what it reaches.

    `details` counts its direct details; `reach_count` and `reach_tokens` count every
    distinct memory below it (not itself); `subtree_tokens` adds its own tokens.
    """

    memory: MapMemory
    layer: str
    types: tuple[str, ...]
    details: int
    reach_count: int
    reach_tokens: int

    @property
    def id(self) -> int:
        """Return the memory's id."""
        return self.memory.id

    @property
    def subtree_tokens(self) -> int:
        """Return its own tokens plus those of every memory it reaches."""
        return self.memory.tokens + self.reach_tokens

    @property
    def has_details(self) -> bool:
        """Return True if opening the node shows anything."""
        return self.details > 0


class HeaderMap:
    """The map of one project: roots, each node's details, and what no header reaches."""

    def __init__(self, memories: Iterable[MapMemory], composites: Iterable[LedgerComposite]):
        self.memories = {memory.id: memory for memory in memories}
        composites = sorted(composites, key=attrgetter("id"))
        self._details = CompositeIndex(composites, self.memories).members_of
        self._types: dict[int, list[str]] = {}
        for composite in composites:
            if composite.head_id in self.memories:
                types = self._types.setdefault(composite.head_id, [])
                if composite.type not in types:
                    types.append(composite.type)
        in_graph = set(self._details)
        for members in self._details.values():
            in_graph.update(members)
        self._unreached = [self.memories[i] for i in sorted(self.memories.keys() - in_graph)]
        roots = top_level(sorted(in_graph), self._details)
        self._roots = sorted(roots & self._details.keys())

    def node(self, memory_id: int) -> MapNode:
        """Return the node of a live memory; raise KeyError for any other id."""
        memory = self.memories[memory_id]
        details = self._details.get(memory_id, ())
        seen: set[int] = set()
        reach(details, self._details, seen)
        seen.discard(memory_id)
        if memory_id not in self._details:
            layer = DETAIL
        elif self._details.keys().isdisjoint(details):
            layer = CATEGORY_HEADER
        else:
            layer = THEME_HEADER
        memories = self.memories
        return MapNode(
            memory=memory,
            layer=layer,
            types=tuple(self._types.get(memory_id, ())),
            details=len(details),
            reach_count=len(seen),
            reach_tokens=sum([memories[i].tokens for i in seen]),
        )

    def roots(self) -> list[MapNode]:
        """Return the top-level headers: theme headers first, then by category and id."""
        nodes = [self.node(memory_id) for memory_id in self._roots]
        return sorted(nodes, key=lambda n: (n.layer != THEME_HEADER, n.memory.category, n.id))

    def details(self, memory_id: int) -> list[MapNode]:
        """Return a header's details in composite order (none for a detail or unknown id)."""
        return [self.node(detail) for detail in self._details.get(memory_id, ())]

    def unreached(self) -> list[MapMemory]:
        """Return the live memories in no composite, by id."""
        return list(self._unreached)

    def summary(self) -> dict:
        """Return the headline counts: headers, details, unreached memories, and their tokens."""
        headers = set(self._details)
        details = {m for ms in self._details.values() for m in ms} - headers
        unreached_tokens = sum(memory.tokens for memory in self._unreached)
        return {
            "memories": len(self.memories),
            "headers": len(headers),
            "details": len(details),
            "roots": len(self._roots),
            "unreached": len(self._unreached),
            "header_tokens": sum(self.memories[i].tokens for i in headers),
            "detail_tokens": sum(self.memories[i].tokens for i in details),
            "unreached_tokens": unreached_tokens,
        }
