"""A store of memories and composites made ready for assembly, once for every assembly of it.

What an assembly needs that depends neither on the budget nor on the mode is worked out
here once: the memories by id, the composite graph, the candidates, the eligible details
and the line of every memory in each mode. What depends on the tie-break (the selection
order) or on the counter (the cost of each line) is worked out on first use and kept. The
ledger page assembles both modes of one store, and each shares all of it.
"""

from collections.abc import Iterable
from functools import cached_property
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from .columns import Columns, IdPositions, candidate_mask, compact, field, first_ahead, pick
from .edges import composite_edges, top_level_mask
from .graph import CompositeIndex
from .headers import details_suffix
from .model import LedgerComposite, LedgerMemory, Mode, Reason, TieBreak, TokenCounter
from .ordering import ineligible_reason, selection_positions
from .patching import patched
from .render import WRAPPER_TEXT, category_tags_text, counted_lines


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
    id; ``details`` maps each eligible header to its eligible details. ``by_id``,
    ``candidates`` and the index's dicts are made on first use: an assembly reads the
    arrays of positions behind them instead.
    """

    def __init__(
        self,
        memories: Iterable[LedgerMemory],
        composites: Iterable[LedgerComposite],
        *,
        now_ms: int,
    ):
        """Index the memories and composites; raise LedgerError for an id given twice.

        Memories are named by their position here (see ``columns``): the candidates, the
        graph's edges and the selection orders are arrays of positions, read in bulk.
        """
        self.now_ms = now_ms
        self.memories = list(memories)
        self.composites = list(composites)
        self._positions = IdPositions(self.memories)
        statuses, expiries = field(self.memories, "status"), field(self.memories, "expires_at")
        self._live, exact_expiries = candidate_mask(statuses, expiries, now_ms)
        self.expiry = first_ahead(expiries, exact_expiries, now_ms)
        self._columns = Columns(self.memories, ids=self._positions.array, statuses=statuses)
        self._candidate_positions = compact(np.flatnonzero(self._live))
        resting = ~self._live
        self.reasons: dict[int, Reason] = {
            memory.id: ineligible_reason(memory, now_ms)
            for memory in pick(self.memories, np.flatnonzero(resting))
        }
        by_id_order = self._positions.by_id_order
        self._ineligible_positions = by_id_order[resting[by_id_order]]
        self.ineligible = pick(self.memories, self._ineligible_positions)
        edges, owners, members = composite_edges(self.composites, self._positions)
        ids = self._positions  # finds the ids at positions (``at``)
        self.index = CompositeIndex.from_pairs(  # its dicts made when rows are
            lambda: edges.as_dict(ids), lambda: zip(ids.at(owners), ids.at(members), strict=True)
        )
        self._edges = edges.eligible(self._live)  # between candidates: the details
        self.details = self._edges.as_dict(ids, fresh=True)
        listing = self._edges.counts > 0
        self._suffix_positions = self._edges.heads[listing]
        self._suffixes = {
            head: details_suffix(listed) for head, listed in self.details.items() if listed
        }
        self._lines: dict[Mode, list[str]] = {}
        self._donor: PreparedStore | None = None  # a store of the same project (share_lines)
        self._headers: dict[int, str] | None = None
        self._heads: list[LedgerMemory] | None = None  # the memories of ``_suffixes``
        # By tie-break: the selection order as positions, and as memories (made when asked).
        self._order_positions: dict[TieBreak, np.ndarray] = {}
        self._orders: dict[TieBreak, list[LedgerMemory]] = {}
        # By tie-break: which positions compete in headers mode, and their ids (when asked).
        self._roots: dict[TieBreak, np.ndarray] = {}
        self._root_ids: dict[TieBreak, set[int]] = {}
        self._promoted: dict[TieBreak, bool] = {}  # a ring of headers had one promoted
        self._costs: dict[tuple[int, Mode], tuple[TokenCounter, dict[int, int]]] = {}
        # By ("plugin" or "headers", tie-break): competitors, the others by id, categories;
        # and the positions of the competitors and of the others.
        self._arranged: dict[tuple[str, TieBreak], Arrangement] = {}
        self._arranged_positions: dict[tuple[str, TieBreak], tuple[np.ndarray, np.ndarray]] = {}
        # By (counter identity, mode, tie-break): the counter, the costs of both lists.
        self._arranged_costs: dict[tuple, tuple[TokenCounter, list[int], list[int]]] = {}

    @cached_property
    def candidates(self) -> list[LedgerMemory]:
        """Return the eligible memories in the order given (made on first use)."""
        return pick(self.memories, self._candidate_positions)

    @property
    def candidate_count(self) -> int:
        """Return how many memories are eligible."""
        return len(self._candidate_positions)

    @cached_property
    def by_id(self) -> dict[int, LedgerMemory]:
        """Return the memories by id (made on first use: an assembly looks none up)."""
        return dict(zip(self._positions.ids, self.memories, strict=True))

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
        """Return the ids in the memories' order (the store's own list: not to be changed)."""
        return self._positions.ids

    def _head_memories(self) -> list[LedgerMemory]:
        """Return the headers with eligible details, in ``_suffixes``' order (made once)."""
        if self._heads is None:
            self._heads = pick(self.memories, self._suffix_positions)
        return self._heads

    def _header_lines(self) -> dict[int, str]:
        """Return the counted line of each header with eligible details, by id."""
        if self._headers is None:
            heads = list(self._suffixes)
            lines = self._rendered(pick(self.memories, self._suffix_positions), self._suffixes)
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
            order = self._orders[tie_break] = pick(self.memories, self._ordered(tie_break))
        return order

    def _ordered(self, tie_break: TieBreak) -> np.ndarray:
        """Return the positions of the candidates in selection order."""
        order = self._order_positions.get(tie_break)
        if order is None:
            order = self._order_positions[tie_break] = selection_positions(
                self.memories, self._candidate_positions, tie_break, self._columns
            )
        return order

    def roots(self, tie_break: TieBreak) -> set[int]:
        """Return the ids that compete in headers mode (see ``graph.top_level``)."""
        roots = self._root_ids.get(tie_break)
        if roots is None:
            positions = np.flatnonzero(self._top_level(tie_break))
            roots = self._root_ids[tie_break] = set(pick(self._positions.ids, positions))
        return roots

    def _top_level(self, tie_break: TieBreak) -> np.ndarray:
        """Return which positions compete in headers mode, as a mask (see ``roots``)."""
        roots = self._roots.get(tie_break)
        if roots is None:
            roots, promoted = top_level_mask(self._edges, self._live, self._ordered(tie_break))
            self._roots[tie_break], self._promoted[tie_break] = roots, promoted
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
            if kind == "headers":
                order, roots = self._ordered(tie_break), self._top_level(tie_break)
                by_id_order = self._positions.by_id_order
                competing = order[roots[order]]
                resting = by_id_order[~roots[by_id_order]]  # ids are unique: sorted by id
                competitors = pick(self.memories, competing)
                others = pick(self.memories, resting)
            else:
                competing, resting = self._ordered(tie_break), self._ineligible_positions
                competitors, others = self.selection(tie_break), self.ineligible
            categories = sorted(set(map(_category, competitors)))
            arranged = self._arranged[kind, tie_break] = (competitors, others, categories)
            self._arranged_positions[kind, tie_break] = (competing, resting)
        return arranged

    def arranged_costs(
        self, counter: TokenCounter, mode: Mode, tie_break: TieBreak
    ) -> tuple[list[int], list[int]]:
        """Return the line costs of ``arranged``'s competitors and of its other memories."""
        known = self._arranged_costs.get((id(counter), mode, tie_break))
        if known is not None:
            return known[1], known[2]
        costs = self._aligned_costs(counter, mode)
        self.arranged(mode, tie_break)
        competing, resting = self._arranged_positions[
            "headers" if mode == "headers" else "plugin", tie_break
        ]
        competing, rest = pick(costs, competing), pick(costs, resting)
        self._arranged_costs[id(counter), mode, tie_break] = (counter, competing, rest)
        return competing, rest

    def _aligned_costs(self, counter: TokenCounter, mode: Mode) -> list[int]:
        """Return ``costs`` as a list in the memories' order.

        ``costs`` is made in that order, so its values are already aligned whenever its
        keys are the ids in order (checked); otherwise each is looked up.
        """
        costs = self.costs(counter, mode)
        ids = self._positions.ids
        if len(costs) == len(ids) and list(costs) == ids:
            return list(costs.values())
        return list(map(costs.__getitem__, ids))

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


_category = itemgetter(LedgerMemory._fields.index("category"))
