"""The header map over a prepared store's memories, as arrays of positions.

The rules are ``graph``'s; this is how a prepared store applies them in bulk. Walking
10,000 composites one by one (``graph.CompositeIndex``), then following every edge from
Python sets to find the top-level memories, took much of a headers-mode assembly of
100,000 memories. Here a memory is its position in the store, and the edges are three
arrays (compressed sparse rows): the headers, where each header's members start, and the
members. Filtering, deduplicating, grouping and walking them is a few numpy calls per
step, whatever the number of composites; the dicts the rest of the ledger reads
(``members_of``, ``details``) are made from the arrays, equal to ``graph``'s in content
and order.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter

import numpy as np

from .columns import IdPositions, compact, mask_of
from .model import LedgerComposite


@dataclass(frozen=True, slots=True)
class Edges:
    """Each header's members, by position: ``members[starts[i]:starts[i + 1]]`` are the
    members of ``heads[i]``, in composite order, each once."""

    heads: np.ndarray
    starts: np.ndarray
    members: np.ndarray

    @property
    def counts(self) -> np.ndarray:
        """Return how many members each header has."""
        return np.diff(self.starts)

    def members_of(self, headers: np.ndarray) -> np.ndarray:
        """Return the members of the headers at these indexes (into ``heads``), all together."""
        starts = self.starts[headers]
        lengths = self.starts[headers + 1] - starts
        # Each member's offset: its header's start plus its rank among that header's members.
        skipped = np.cumsum(lengths) - lengths
        offsets = np.repeat(starts - skipped, lengths) + np.arange(lengths.sum())
        return self.members[offsets]

    def eligible(self, live: np.ndarray) -> "Edges":
        """Return the edges between live memories only: live headers, their live members."""
        header_live = live[self.heads]
        member_live = live[self.members] & np.repeat(header_live, self.counts)
        owners = np.repeat(np.arange(self.heads.size), self.counts)[member_live]
        counts = np.bincount(owners, minlength=self.heads.size)[header_live]
        return Edges(self.heads[header_live], _starts(counts), self.members[member_live])

    def as_dict(self, ids: IdPositions, *, fresh: bool = False) -> dict:
        """Return each header's member ids by its id (``graph``'s dicts), in header order
        (``fresh``: see ``IdPositions.at``)."""
        members = tuple(ids.at(self.members, fresh=fresh))
        bounds = self.starts.tolist()
        tuples = map(members.__getitem__, map(slice, bounds[:-1], bounds[1:]))
        return dict(zip(ids.at(self.heads, fresh=fresh), tuples, strict=True))


def _repeats(values: np.ndarray) -> bool:
    """Return whether a value is given twice (a sort, cheaper than ``np.unique``'s)."""
    ordered = np.sort(values)
    return bool((ordered[1:] == ordered[:-1]).any())


def _starts(counts: np.ndarray) -> np.ndarray:
    starts = np.zeros(counts.size + 1, dtype=np.intp)
    np.cumsum(counts, out=starts[1:])
    return starts


def composite_edges(
    composites: Iterable[LedgerComposite], ids: IdPositions
) -> tuple[Edges, np.ndarray, np.ndarray]:
    """Return the edges the composites draw over the memories, and every (header, member)
    pair by position, in the order each first appears.

    As ``graph.CompositeIndex`` reads them: composites by id, members by position; a head
    or a member that is no memory is ignored, as is a head among its own members; a header
    of several composites has each member once, where it first appears; headers come in
    the order of their first composite (one whose members are all ignored included).
    """
    composites = sorted(composites, key=attrgetter("id"))
    heads = ids.positions(list(map(attrgetter("head_id"), composites)))
    listed = list(map(attrgetter("member_ids"), composites))
    lengths = np.fromiter(map(len, listed), dtype=np.intp, count=len(listed))
    members = ids.positions(list(chain.from_iterable(listed)))
    owners = np.repeat(heads, lengths)
    kept = (owners >= 0) & (members >= 0) & (members != owners)
    owners, members = owners[kept], members[kept]
    pairs = owners.astype(np.int64) * max(len(ids.ids), 1) + members
    if _repeats(pairs):  # a pair given twice: kept where it first appears
        first = np.sort(np.unique(pairs, return_index=True)[1])
        owners, members = owners[first], members[first]
    headers = heads[heads >= 0]
    if _repeats(headers):  # a head of several composites: in the order of its first one
        _, first = np.unique(headers, return_index=True)
        headers = headers[np.sort(first)]
    rank = np.zeros(len(ids.ids), dtype=np.intp)
    rank[headers] = np.arange(headers.size)
    owner_rank = rank[owners]
    grouped = np.argsort(owner_rank, kind="stable")
    counts = np.bincount(owner_rank, minlength=headers.size)
    edges = Edges(compact(headers), _starts(counts), compact(members[grouped]))
    return edges, compact(owners), compact(members)


def top_level_mask(edges: Edges, live: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, bool]:
    """Return ``graph.top_level_and_promotion``'s answer as a mask over the positions.

    ``edges`` are between live memories only (``Edges.eligible``), ``order`` the live
    positions in selection order. The top-level memories are the live ones no header lists;
    everything they reach is seen. A memory still unseen hangs in a ring of headers: the
    first of it in selection order is promoted, and what it reaches seen, until none is left.
    """
    count = live.size
    roots = live & ~mask_of(edges.members, count)
    seen = roots.copy()
    header_at = np.full(count, -1, dtype=np.intp)
    header_at[edges.heads] = np.arange(edges.heads.size)
    _reach(edges, header_at, edges.heads[roots[edges.heads]], seen)
    promoted = False
    if np.count_nonzero(seen) < np.count_nonzero(live):
        for position in order[~seen[order]].tolist():
            if not seen[position]:
                roots[position] = seen[position] = promoted = True
                _reach(edges, header_at, np.array([position]), seen)
    return roots, promoted


def _reach(edges: Edges, header_at: np.ndarray, start: np.ndarray, seen: np.ndarray) -> None:
    """Mark as seen every memory reachable from ``start`` (already seen) through details."""
    frontier = start
    while frontier.size:
        headers = header_at[frontier]
        found = edges.members_of(headers[headers >= 0])
        fresh = np.zeros(seen.size, dtype=bool)
        fresh[found[~seen[found]]] = True  # each once: a mask, not a sort
        seen |= fresh
        frontier = np.flatnonzero(fresh)
