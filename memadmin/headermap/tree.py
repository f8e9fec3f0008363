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

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from typing import NamedTuple

from memadmin.core.ledger.graph import CompositeIndex, reach, top_level
from memadmin.core.ledger.model import LedgerComposite

THEME_HEADER, CATEGORY_HEADER, DETAIL = "theme header", "category header", "detail"


class MapMemory(NamedTuple):
    """A live memory as the map shows it: its ids, category, text and token size."""

    id: int
    display_id: int
    category: str
    content: str
    tokens: int


TextReader = Callable[[Collection[int]], dict[int, str]]


def _no_texts(ids: Collection[int]) -> dict[int, str]:
    return {}


class MapMemories(Mapping[int, MapMemory]):
    """The live memories of a map by id, kept as columns and made into a `MapMemory` when read.

    A map reads every live memory of a project, up to 100,000, per request and shows a few
    hundred. Dictionaries of numbers and strings are no work for Python's garbage
    collector; 100,000 live tuples are (a tenth of a second per request, in collections).
    """

    __slots__ = ("category", "content", "display_id", "texts", "tokens")

    def __init__(self, memories: Iterable[MapMemory], texts: TextReader | None = None):
        """Keep the memories; `texts` reads the texts left empty, when they are shown."""
        self.texts = texts or _no_texts
        self.display_id: dict[int, int] = {}
        self.category: dict[int, str] = {}
        self.content: dict[int, str] = {}
        self.tokens: dict[int, int] = {}
        for memory in memories:
            memory_id = memory.id
            self.display_id[memory_id] = memory.display_id
            self.category[memory_id] = memory.category
            if memory.content or texts is None:
                self.content[memory_id] = memory.content
            self.tokens[memory_id] = memory.tokens

    def __getitem__(self, memory_id: int) -> MapMemory:
        tokens = self.tokens[memory_id]
        content = self.content.get(memory_id)
        if content is None:
            content = self.content[memory_id] = self.texts((memory_id,)).get(memory_id, "")
        return MapMemory(
            memory_id,
            self.display_id[memory_id],
            self.category[memory_id],
            content,
            tokens,
        )

    def read_texts(self, ids: Iterable[int]) -> None:
        """Read the texts of these memories, in one go, where they are not known yet."""
        wanted = [i for i in ids if i in self.tokens and i not in self.content]
        if wanted:
            self.content.update(self.texts(wanted))

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self.tokens

    def __iter__(self) -> Iterator[int]:
        return iter(self.tokens)

    def __len__(self) -> int:
        return len(self.tokens)


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


class UnreachedGroup(NamedTuple):
    """The memories of one category that no header reaches: how many, and their tokens."""

    category: str
    count: int
    tokens: int


class MapGraph:
    """The map's graph over the ids of a project's live memories: no text, no categories.

    It answers everything that depends on the composites alone (details, types, layers,
    roots, what no header reaches), so a fragment can read the text of the few memories it
    shows and still draw them as the whole map does. What a fragment does not ask for (the
    roots, the memories in no composite) is worked out on first use.
    """

    def __init__(self, live: Collection[int], composites: Iterable[LedgerComposite]):
        self._live = live
        composites = sorted(composites, key=attrgetter("id"))
        self.details = CompositeIndex(composites, live).members_of
        self.types: dict[int, list[str]] = {}
        for composite in composites:
            if composite.head_id in live:
                types = self.types.setdefault(composite.head_id, [])
                if composite.type not in types:
                    types.append(composite.type)

    @cached_property
    def _in_graph(self) -> set[int]:
        in_graph = set(self.details)
        for members in self.details.values():
            in_graph.update(members)
        return in_graph

    @cached_property
    def detail_ids(self) -> set[int]:
        """Return the ids of the memories that are details and head nothing."""
        return self._in_graph - self.details.keys()

    @cached_property
    def unreached(self) -> list[int]:
        """Return the ids of the live memories in no composite, in order."""
        live = self._live.keys() if isinstance(self._live, Mapping) else self._live
        return sorted(live - self._in_graph)

    @cached_property
    def roots(self) -> list[int]:
        """Return the ids of the headers no other header reaches, in order."""
        headers = self.details.keys()
        # Which headers are roots depends on the edges between headers only: walking the
        # details that head nothing (most of the map) would change no answer.
        header_details = {
            head: tuple([member for member in members if member in headers])
            for head, members in self.details.items()
        }
        return sorted(top_level(sorted(headers), header_details))

    def layer(self, memory_id: int) -> str:
        """Return a memory's layer, read from its details alone (nothing below is walked)."""
        details = self.details.get(memory_id)
        if details is None:
            return DETAIL
        headers = self.details
        return THEME_HEADER if any(member in headers for member in details) else CATEGORY_HEADER

    def shown_by_details(self, memory_id: int) -> set[int]:
        """Return the ids the details of a node show: each detail and every memory below it."""
        seen: set[int] = set()
        reach(self.details.get(memory_id, ()), self.details, seen)
        return seen


class HeaderMap:
    """The map of one project: roots, each node's details, and what no header reaches.

    Built from `composites`, the graph is over the `memories` given, every live memory of
    the project. Given a `graph` built over every live memory's id instead, `memories` can
    be fewer: those a fragment shows (for `details`, those `shown_by_details` names).
    Given `texts`, the memories may come with their text empty: it is read when a node is
    made, or for many at once by `read_texts`.
    """

    def __init__(
        self,
        memories: Iterable[MapMemory],
        composites: Iterable[LedgerComposite] = (),
        *,
        graph: MapGraph | None = None,
        texts: TextReader | None = None,
    ):
        self.memories = MapMemories(memories, texts)
        self.read_texts = self.memories.read_texts
        # A plain dict of the live memories: the fastest test of "is it live".
        self.graph = MapGraph(self.memories.tokens, composites) if graph is None else graph
        self._details = self.graph.details
        self.layer = self.graph.layer

    def node(self, memory_id: int) -> MapNode:
        """Return the node of a live memory; raise KeyError for any other id."""
        memory = self.memories[memory_id]
        details = self._details.get(memory_id, ())
        seen: set[int] = set()
        reach(details, self._details, seen)
        seen.discard(memory_id)
        tokens = self.memories.tokens
        return MapNode(
            memory=memory,
            layer=self.layer(memory_id),
            types=tuple(self.graph.types.get(memory_id, ())),
            details=len(details),
            reach_count=len(seen),
            reach_tokens=sum([tokens[i] for i in seen]),
        )

    def root_ids(self) -> list[int]:
        """Return the top-level headers' ids: theme headers first, then by category and id.

        Sorting needs no node: a page of roots makes nodes (and walks what they reach) for
        the roots it shows only. Worked out once (a process keeps a map while it holds).
        """
        return list(self._root_ids)

    @cached_property
    def _root_ids(self) -> list[int]:
        category, layer = self.memories.category, self.layer
        return sorted(self.graph.roots, key=lambda i: (layer(i) != THEME_HEADER, category[i], i))

    def roots(self) -> list[MapNode]:
        """Return the top-level headers as nodes, in `root_ids` order."""
        return [self.node(memory_id) for memory_id in self.root_ids()]

    def details(self, memory_id: int) -> list[MapNode]:
        """Return a header's details in composite order (none for a detail or unknown id)."""
        return [self.node(detail) for detail in self._details.get(memory_id, ())]

    def unreached(self, category: str | None = None) -> list[MapMemory]:
        """Return the live memories in no composite (of one category if given), by id."""
        memories, unreached = self.memories, self.graph.unreached
        if category is not None:
            of = memories.category
            unreached = [i for i in unreached if of[i] == category]
        memories.read_texts(unreached)
        return [memories[i] for i in unreached]

    def unreached_groups(self) -> list[UnreachedGroup]:
        """Return, by category name, how many memories no header reaches and their tokens."""
        return list(self._unreached_groups)

    @cached_property
    def _unreached_groups(self) -> list[UnreachedGroup]:
        counts: Counter[str] = Counter()
        tokens: Counter[str] = Counter()
        category, size = self.memories.category, self.memories.tokens
        for memory_id in self.graph.unreached:
            counts[category[memory_id]] += 1
            tokens[category[memory_id]] += size[memory_id]
        return [UnreachedGroup(name, counts[name], tokens[name]) for name in sorted(counts)]

    def summary(self) -> dict:
        """Return the headline counts: headers, details, unreached memories, and their tokens."""
        return dict(self._summary)

    @cached_property
    def _summary(self) -> dict:
        headers, details = self._details.keys(), self.graph.detail_ids
        unreached, tokens = self.graph.unreached, self.memories.tokens
        return {
            "memories": len(tokens),
            "headers": len(headers),
            "details": len(details),
            "roots": len(self.graph.roots),
            "unreached": len(unreached),
            "header_tokens": sum([tokens[i] for i in headers]),
            "detail_tokens": sum([tokens[i] for i in details]),
            "unreached_tokens": sum([tokens[i] for i in unreached]),
        }
