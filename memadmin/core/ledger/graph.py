"""The header map the composites draw over the memories.

A memory that heads at least one composite is a header; a memory that belongs to a
composite is a detail of that composite's head. A memory can be both (a category header
under a theme header). Only edges between memories given to the ledger count: a head or a
member outside them is ignored, as is a head listed among its own members.

Traversal is cycle-safe everywhere: each memory is visited at most once.
"""

from collections.abc import Callable, Container, Iterable
from itertools import repeat
from operator import attrgetter

from .model import Kind, LedgerComposite


class CompositeIndex:
    """Head-to-member and member-to-head lookups, built once per assembly.

    ``members_of`` maps each header to its members in composite order (composites by id,
    members by position), each once. ``heads_of`` maps each detail to its headers, in the
    order its (header, detail) pairs first appear; it is built on first use, since only
    the rows an assembly hands out need it. (A prepared store builds its index in bulk,
    with ``from_pairs``: see ``edges``.)
    """

    __slots__ = ("_heads_of", "_joined", "_members_of")

    def __init__(self, composites: Iterable[LedgerComposite], known_ids: Container[int]):
        members_of: dict[int, tuple[int, ...]] = {}
        several: dict[int, dict[int, None]] = {}  # the members of a head of several composites
        # (head, members new to it) in composite order: enough to build heads_of later.
        joined: list[tuple[int, tuple[int, ...]]] = []
        known = known_ids.__contains__
        for composite in sorted(composites, key=attrgetter("id")):
            head = composite.head_id
            if head not in known_ids:
                continue
            new = tuple(composite.member_ids)
            if head in new or not all(map(known, new)):
                new = tuple([member for member in new if member in known_ids and member != head])
            if len(new) > 1:
                new = tuple(dict.fromkeys(new))  # each member once
            members = members_of.get(head)
            if members is None:
                members_of[head] = new
            else:
                gathered = several.get(head)
                if gathered is None:
                    gathered = several[head] = dict.fromkeys(members)
                new = tuple([member for member in new if member not in gathered])
                gathered.update(dict.fromkeys(new))
            joined.append((head, new))
        members_of.update((head, tuple(gathered)) for head, gathered in several.items())
        self._members_of: dict | Callable[[], dict] = members_of
        self._joined: Callable[[], Iterable[tuple[int, int]]] | None = lambda: (
            pair for head, members in joined for pair in zip(repeat(head), members)
        )
        self._heads_of: dict[int, tuple[int, ...]] | None = None

    @classmethod
    def from_pairs(
        cls,
        members_of: Callable[[], dict[int, tuple[int, ...]]],
        pairs: Callable[[], Iterable[tuple[int, int]]],
    ) -> "CompositeIndex":
        """Return the index whose ``members_of`` and pairs are worked out elsewhere.

        ``members_of()`` gives ``members_of``, and ``pairs()`` every (header, detail) pair
        in the order each first appears: each is called once, when first needed.
        """
        index = cls.__new__(cls)
        index._members_of = members_of
        index._joined = pairs
        index._heads_of = None
        return index

    @property
    def members_of(self) -> dict[int, tuple[int, ...]]:
        """Return each header's members, in composite order."""
        if not isinstance(self._members_of, dict):
            self._members_of = self._members_of()
        return self._members_of

    @property
    def heads_of(self) -> dict[int, tuple[int, ...]]:
        """Return each detail's headers, in the order each became its header."""
        if self._heads_of is None:
            heads_of: dict[int, tuple[int, ...]] = {}
            get = heads_of.get
            for head, member in self._joined():
                heads = get(member)
                heads_of[member] = (head,) if heads is None else (*heads, head)
            self._heads_of = heads_of
            self._joined = None
        return self._heads_of

    def kind(self, memory_id: int) -> Kind:
        """Return 'header' if the memory heads a composite, else 'detail' if it is a member."""
        if memory_id in self.members_of:
            return "header"
        return "detail" if memory_id in self.heads_of else "standalone"


def reach(start: Iterable[int], details: dict[int, tuple[int, ...]], seen: set[int]) -> None:
    """Add to ``seen`` the ``start`` ids and every memory reachable from them as a detail."""
    stack = list(start)
    seen.update(stack)
    get = details.get
    while stack:
        members = get(stack.pop())
        if members:
            fresh = seen.isdisjoint(members)
            new = members if fresh else [member for member in members if member not in seen]
            if new:
                seen.update(new)
                stack.extend(new)


def top_level(selection_ids: list[int], details: dict[int, tuple[int, ...]]) -> set[int]:
    """Return the ids that compete for the budget in headers mode.

    ``selection_ids`` are the eligible memories in selection order, ``details`` the eligible
    details of each eligible header. The competitors are the eligible memories that are no
    eligible header's detail: top-level headers and standalone memories. A ring of headers
    that only detail one another would otherwise be unreachable; its member that ranks first
    in selection order is promoted to compete, so every eligible memory stays reachable.
    """
    return top_level_and_promotion(selection_ids, details)[0]


def top_level_and_promotion(
    selection_ids: list[int], details: dict[int, tuple[int, ...]]
) -> tuple[set[int], bool]:
    """Return ``top_level``'s ids, and whether a ring of headers had one of them promoted."""
    nested = set().union(*details.values())
    roots = set(selection_ids)
    roots -= nested
    seen = set(roots)
    reach([root for root in details if root in roots], details, seen)
    promoted = False
    if len(seen) < len(selection_ids):
        for memory_id in selection_ids:
            if memory_id not in seen:
                roots.add(memory_id)
                promoted = True
                reach((memory_id,), details, seen)
    return roots, promoted
