"""A store of memories and composites made ready for assembly, once for every assembly of it.

What an assembly needs that depends neither on the budget nor on the mode is worked out
here once: the memories by id, the composite graph, the candidates, the eligible details
and the line of every memory in each mode. What depends on the tie-break (the selection
order) or on the counter (the cost of each line) is worked out on first use and kept. The
ledger page assembles both modes of one store, and each shares all of it.
"""

from collections.abc import Iterable
from itertools import compress
from operator import attrgetter, not_
from typing import NamedTuple

from .graph import CompositeIndex, top_level_and_promotion
from .headers import details_suffix
from .model import LedgerComposite, LedgerError, LedgerMemory, Mode, Reason, TieBreak, TokenCounter
from .ordering import ineligible_reason, partition, selection_order
from .patching import next_expiry, patched
from .render import WRAPPER_TEXT, category_tags_text, counted_lines

_id = attrgetter("id")


def count_all(counter: TokenCounter, texts: list[str]) -> list[int]:
    """Return the count of each text, in bulk when the counter can (``count_many``)."""
    count_many = getattr(counter, "count_many", None)
    if count_many is not None:
        return count_many(texts)
    return list(map(counter.count, texts))


class PreparedStore:
    """Memories and composites prepared for assembly (see ``assembly.assemble``).

    ``memories`` keep the order given; ``by_id`` finds them; ``index`` is the composite
    graph over them; ``candidates`` are the eligible memories in the order given;
    ``reasons`` says why each other memory is not one, and ``ineligible`` lists those by
    id; ``details`` maps each eligible header to its eligible details.
    """

    def __init__(
        self,
        memories: Iterable[LedgerMemory],
        composites: Iterable[LedgerComposite],
        *,
        now_ms: int,
    ):
        """Index the memories and composites; raise LedgerError for an id given twice."""
        self.now_ms = now_ms
        self.memories = list(memories)
        self.expiry = next_expiry(self.memories, now_ms)
        self.composites = list(composites)
        self.by_id = _index_by_id(self.memories)
        self.index = CompositeIndex(self.composites, self.by_id)
        self.candidates, ineligible = partition(self.memories, now_ms)
        self.reasons: dict[int, Reason] = {
            memory.id: ineligible_reason(memory, now_ms) for memory in ineligible
        }
        self.ineligible = sorted(ineligible, key=attrgetter("id"))
        self.details = self.index.eligible_details({memory.id for memory in ineligible})
        self._suffixes = {head: details_suffix(ids) for head, ids in self.details.items() if ids}
        self._lines: dict[Mode, list[str]] = {}
        self._donor: PreparedStore | None = None  # a store of the same project (share_lines)
        self._headers: dict[int, str] | None = None
        self._heads: list[LedgerMemory] | None = None  # the memories of ``_suffixes``
        self._orders: dict[TieBreak, list[LedgerMemory]] = {}
        self._roots: dict[TieBreak, set[int]] = {}
        self._promoted: dict[TieBreak, bool] = {}  # a ring of headers had one promoted
        self._costs: dict[tuple[int, Mode], tuple[TokenCounter, dict[int, int]]] = {}
        # By ("plugin" or "headers", tie-break): competitors, the others by id, categories.
        self._arranged: dict[tuple[str, TieBreak], Arrangement] = {}
        # By (counter identity, mode, tie-break): the counter, the costs of both lists.
        self._arranged_costs: dict[tuple, tuple[TokenCounter, list[int], list[int]]] = {}

    def lines(self, mode: Mode) -> list[str]:
        """Return each memory's counted line (with its ``\\n``) in that mode, in the order given.

        In headers mode a header with eligible details ends its line with their ids.
        """
        lines = self._lines.get(mode)
        if lines is None:
            if mode == "headers" and self._suffixes:
                headers = self._header_lines()
                lines = list(map(headers.get, self._ids(), self.lines("plugin")))
            else:
                lines = self._lines.get("plugin") or self._rendered(self.memories, {})
            self._lines[mode] = lines
        return lines

    def line_of(self, memory: LedgerMemory, mode: Mode) -> str:
        """Return one memory's line as rendered in that mode (without its ``\\n``)."""
        if mode == "headers" and memory.id in self._suffixes:
            if self._headers is not None:
                return self._headers[memory.id][:-1]
            return counted_lines((memory,), self._suffixes)[0][:-1]
        return counted_lines((memory,), {})[0][:-1]

    def texts(self) -> list[str]:
        """Return every text an assembly of this store counts, in either mode, each once.

        That is the wrapper, the tags of each category, each memory's line as plugin mode
        renders it and, for a header with eligible details, its line as headers mode does.
        No two are equal (each line starts with its memory's own id, the tags and the
        wrapper with ``<``), so no set is built to find out.
        """
        categories = sorted({memory.category for memory in self.memories})
        return [
            WRAPPER_TEXT,
            *map(category_tags_text, categories),
            *self.lines("plugin"),
            *self._header_lines().values(),
        ]

    def counted(self) -> "Counted":
        """Return what an assembly of this store counts, in either mode, rendering no line:
        the memories whose plugin-mode line it counts (every one), the wrapper and the tags
        of each category, and the headers whose line with their details it counts.

        That is ``texts()``, for a counter that counts a memory's line without it
        (``count_memories`` and ``count_headers``, see ``TokenCounter``).
        """
        categories = sorted({memory.category for memory in self.memories})
        return Counted(
            self.memories,
            [WRAPPER_TEXT, *map(category_tags_text, categories)],
            self._head_memories(),
            self._suffixes,
        )

    def costs(self, counter: TokenCounter, mode: Mode) -> dict[int, int]:
        """Return the cost of each memory's line in that mode, by id (counted once)."""
        known = self._costs.get((id(counter), mode))
        if known is not None:
            return known[1]
        plugin = self._costs.get((id(counter), "plugin"))
        if mode == "headers" and plugin is not None:
            costs = dict(plugin[1])
            costs.update(self._header_costs(counter))
        elif getattr(counter, "count_memories", None) is not None:
            costs = self._memory_costs(counter, mode)
        else:
            costs = dict(zip(self._ids(), count_all(counter, self.lines(mode)), strict=True))
        # Keyed by the counter's identity (a counter need not be hashable), kept alive with it.
        self._costs[id(counter), mode] = (counter, costs)
        return costs

    def _memory_costs(self, counter: TokenCounter, mode: Mode) -> dict[int, int]:
        """Return ``costs`` made by the counter's ``count_memories`` (no line rendered but
        those it must count).

        In headers mode a header with eligible details costs its line with the details, as
        plugin mode's costs are made headers mode's above; its plugin-mode line is not
        counted unless known (``unneeded``).
        """
        if mode != "headers" or not self._suffixes:
            return dict(zip(self._ids(), counter.count_memories(self.memories), strict=True))
        counts = counter.count_memories(self.memories, unneeded=self._suffixes)
        costs = dict(zip(self._ids(), counts, strict=True))
        costs.update(self._header_costs(counter))
        return costs

    def _header_costs(self, counter: TokenCounter) -> dict[int, int]:
        """Return the cost of each header's line with its details, by id: by the counter's
        ``count_headers`` when it has one (no line rendered but those it must count)."""
        count_headers = getattr(counter, "count_headers", None)
        if count_headers is not None:
            counts = count_headers(self._head_memories(), self._suffixes)
            return dict(zip(self._suffixes, counts, strict=True))
        headers = self._header_lines()
        return dict(zip(headers, count_all(counter, list(headers.values())), strict=True))

    def _ids(self) -> list[int]:
        return list(self.by_id)

    def _head_memories(self) -> list[LedgerMemory]:
        """Return the headers with eligible details, in ``_suffixes``' order (made once)."""
        if self._heads is None:
            self._heads = list(map(self.by_id.__getitem__, self._suffixes))
        return self._heads

    def _header_lines(self) -> dict[int, str]:
        """Return the counted line of each header with eligible details, by id."""
        if self._headers is None:
            heads = list(self._suffixes)
            lines = self._rendered(list(map(self.by_id.__getitem__, heads)), self._suffixes)
            self._headers = dict(zip(heads, lines, strict=True))
        return self._headers

    def share_lines(self, donor: "PreparedStore") -> None:
        """Take the lines of ``donor`` (another read of the same memories) wherever they match.

        Another mode's read of a project holds mostly the same memories (the reader only
        fills in defaults), so its lines are the same texts: the same string objects are
        kept once, not twice. A line is taken only where the memory's id, content, source
        and suffix are the donor's.
        """
        if donor is not self and not self._lines and self._headers is None:
            self._donor = donor

    def forget_lines(self) -> None:
        """Let go of every memory's line once its costs are known (rendered again if asked).

        The lines are counted text: once costed, an assembly needs only the headers' lines
        and those it injects (``line_of``). At 98,000 memories they are some 60 MB.
        """
        self._lines.clear()

    def _rendered(self, memories: list[LedgerMemory], suffixes: dict[int, str]) -> list[str]:
        """Return ``counted_lines(memories, suffixes)``, with the donor's lines where equal."""
        donor = self._donor
        if donor is None:
            return counted_lines(memories, suffixes)
        if suffixes:
            known, known_suffixes = donor._header_lines(), donor._suffixes
        else:
            known, known_suffixes = dict(zip(donor._ids(), donor.lines("plugin"), strict=True)), {}
        theirs = donor.by_id
        lines = []
        for memory in memories:
            line = known.get(memory.id)
            other = theirs.get(memory.id) if line is not None else None
            if (
                other is None
                or other.content != memory.content
                or other.source_name != memory.source_name
                or suffixes.get(memory.id) != known_suffixes.get(memory.id)
            ):
                line = counted_lines((memory,), suffixes)[0]
            lines.append(line)
        return lines

    def selection(self, tie_break: TieBreak) -> list[LedgerMemory]:
        """Return the candidates in selection order."""
        order = self._orders.get(tie_break)
        if order is None:
            order = self._orders[tie_break] = selection_order(self.candidates, tie_break)
        return order

    def roots(self, tie_break: TieBreak) -> set[int]:
        """Return the ids that compete in headers mode (see ``graph.top_level``)."""
        roots = self._roots.get(tie_break)
        if roots is None:
            selection_ids = list(map(_id, self.selection(tie_break)))
            roots, self._promoted[tie_break] = top_level_and_promotion(selection_ids, self.details)
            self._roots[tie_break] = roots
        return roots

    def arranged(self, mode: Mode, tie_break: TieBreak) -> "Arrangement":
        """Return the competitors in selection order, the other memories by id, and the
        competitors' categories, sorted (made once).

        In headers mode only top-level memories compete (``roots``); in the other modes
        every candidate does and the ineligible memories rest.
        """
        kind = "headers" if mode == "headers" else "plugin"
        arranged = self._arranged.get((kind, tie_break))
        if arranged is None:
            selection = self.selection(tie_break)
            if kind == "headers":
                roots = self.roots(tie_break)
                selection_ids = list(map(_id, selection))
                competes = list(map(roots.__contains__, selection_ids))
                competitors = list(compress(selection, competes))
                resting_ids = list(compress(selection_ids, map(not_, competes)))
                resting_ids += map(_id, self.ineligible)
                resting_ids.sort()  # ids are unique: the same order as sorting the memories
                resting = list(map(self.by_id.__getitem__, resting_ids))
            else:
                competitors, resting = selection, self.ineligible
            categories = sorted({memory.category for memory in competitors})
            arranged = self._arranged[kind, tie_break] = (competitors, resting, categories)
        return arranged

    def arranged_costs(
        self, counter: TokenCounter, mode: Mode, tie_break: TieBreak
    ) -> tuple[list[int], list[int]]:
        """Return the line costs of ``arranged``'s competitors and of its other memories."""
        known = self._arranged_costs.get((id(counter), mode, tie_break))
        if known is not None:
            return known[1], known[2]
        costs = self.costs(counter, mode)
        competitors, resting, _ = self.arranged(mode, tie_break)
        competing = list(map(costs.__getitem__, map(_id, competitors)))
        rest = list(map(costs.__getitem__, map(_id, resting)))
        self._arranged_costs[id(counter), mode, tie_break] = (counter, competing, rest)
        return competing, rest

    def edited(
        self,
        memories: Iterable[LedgerMemory],
        composites: Iterable[LedgerComposite],
        *,
        now_ms: int,
    ) -> "PreparedStore":
        """Return the store these memories make, patched from this one when only a few changed.

        The same as ``PreparedStore(memories, composites, now_ms=now_ms)``, made in a fraction
        of the time when the memories differ from this store's at a few positions under the
        same ids (see ``patching``).
        """
        memories, composites = list(memories), list(composites)
        store = patched(self, memories, composites, now_ms)
        return store if store is not None else PreparedStore(memories, composites, now_ms=now_ms)


Arrangement = tuple[list[LedgerMemory], list[LedgerMemory], list[str]]


class Counted(NamedTuple):
    """What an assembly of a store counts (``PreparedStore.counted``): each memory's
    plugin-mode line, the ``texts``, and each of the ``headers``' line with its details
    (``suffixes`` by id, as ``render.counted_lines`` takes them)."""

    memories: list[LedgerMemory]
    texts: list[str]
    headers: list[LedgerMemory]
    suffixes: dict[int, str]


def _index_by_id(memories: list[LedgerMemory]) -> dict[int, LedgerMemory]:
    by_id = dict(zip(map(_id, memories), memories, strict=True))
    if len(by_id) < len(memories):
        seen: set[int] = set()
        for memory in memories:
            if memory.id in seen:
                raise LedgerError(f"Memory #{memory.id} is given twice; ids must be unique.")
            seen.add(memory.id)
    return by_id
