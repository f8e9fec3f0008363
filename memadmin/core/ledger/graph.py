"""The header map the composites draw over the memories.

A memory that heads at least one composite is a header; a memory that belongs to a
composite is a detail of that composite's head. A memory can be both (a category header
under a theme header). Only edges between memories given to the ledger count: a head or a
member outside them is ignored, as is a head listed among its own members.

Traversal is cycle-safe everywhere: each memory is visited at most once.
"""

from collections.abc import Iterable

from .model import Kind, LedgerComposite


class CompositeIndex:
    """Head-to-member and member-to-head lookups, built once per assembly."""

    __slots__ = ("heads_of", "kinds", "members_of")

    def __init__(self, composites: Iterable[LedgerComposite], known_ids: set[int] | dict):
        members_of: dict[int, dict[int, None]] = {}
        heads_of: dict[int, list[int]] = {}
        for composite in sorted(composites, key=lambda composite: composite.id):
            head = composite.head_id
            if head not in known_ids:
                continue
            members = members_of.get(head)
            if members is None:
                members = members_of[head] = {}
            for member in composite.member_ids:
                if member in members or member == head or member not in known_ids:
                    continue
                members[member] = None  # a new (head, member) pair: record it both ways
                heads = heads_of.get(member)
                if heads is None:
                    heads_of[member] = [head]
                else:
                    heads.append(head)
        self.members_of: dict[int, tuple[int, ...]] = {
            head: tuple(members) for head, members in members_of.items()
        }
        self.heads_of: dict[int, tuple[int, ...]] = {
            member: tuple(heads) for member, heads in heads_of.items()
        }
        # The kind of every memory in a composite; any other memory is standalone.
        self.kinds: dict[int, Kind] = dict.fromkeys(self.heads_of, "detail")
        self.kinds.update(dict.fromkeys(self.members_of, "header"))

    def kind(self, memory_id: int) -> Kind:
        """Return 'header' if the memory heads a composite, else 'detail' if it is a member."""
        return self.kinds.get(memory_id, "standalone")

    def eligible_details(self, eligible: set[int]) -> dict[int, tuple[int, ...]]:
        """Return, for every eligible header, its eligible members (possibly none)."""
        return {
            head: tuple(member for member in members if member in eligible)
            for head, members in self.members_of.items()
            if head in eligible
        }


def reach(start: Iterable[int], details: dict[int, tuple[int, ...]], seen: set[int]) -> None:
    """Add to ``seen`` the ``start`` ids and every memory reachable from them as a detail."""
    stack = list(start)
    seen.update(stack)
    while stack:
        for member in details.get(stack.pop(), ()):
            if member not in seen:
                seen.add(member)
                stack.append(member)


def top_level(selection_ids: list[int], details: dict[int, tuple[int, ...]]) -> set[int]:
    """Return the ids that compete for the budget in headers mode.

    ``selection_ids`` are the eligible memories in selection order, ``details`` the eligible
    details of each eligible header. The competitors are the eligible memories that are no
    eligible header's detail: top-level headers and standalone memories. A ring of headers
    that only detail one another would otherwise be unreachable; its member that ranks first
    in selection order is promoted to compete, so every eligible memory stays reachable.
    """
    nested = {member for members in details.values() for member in members}
    roots = {memory_id for memory_id in selection_ids if memory_id not in nested}
    seen: set[int] = set()
    reach(roots, details, seen)
    if len(seen) < len(selection_ids):
        for memory_id in selection_ids:
            if memory_id not in seen:
                roots.add(memory_id)
                reach((memory_id,), details, seen)
    return roots
