"""Workspaces in plugin mode: other members' memories and the three-phase budget split.

The rules, each from upstream's source (0.38 to 0.46):

- A project is workspaced when its workspace has at least two members: every
  ``workspace_members`` row sharing a ``workspace_id`` with the project's own row, each
  identity once (``workspaces.ts``: ``resolveWorkspaceIdentitySet``). Members take turns in
  ``ORDER BY display_name ASC, project_path ASC``: SQLite's BINARY collation, which is
  Python's ``str`` order (code points order as UTF-8 bytes do); a NULL name sorts first.
- The shared categories come from the project's workspace with the lowest id
  (``selectWorkspaceShareCategories``): NULL means ``["CONSTRAINTS"]``; anything but a JSON
  array of the five current names (malformed JSON, a non-array, one unknown entry) shares
  nothing (``normalizeShareCategories``).
- Another member's row is a candidate when it is live and unexpired, in a shared category,
  ``shareable = 1`` and of a known scope (``storage-memory.ts``: ``getMemoriesByProjects``);
  the project's own rows are candidates as for one project.
- A foreign row renders ``#id [display name]: content``, the name escaped like content, no
  name when the member's display name is empty (``sourceNameForMemory``,
  ``renderMemoryLineV2``); its cost counts the name.
- Selection (``inject-compartments.ts``: ``trimWorkspaceMemoriesToBudgetV2``), one budget
  and one accounting (``createMemoryBlockAccounting``) over three phases:
  1. every permanent row, own or foreign, in selection order, admitted if it fits;
  2. a floor, computed once: (budget left) / (number of members), not rounded. Members take
     turns; each tries its non-permanent rows in selection order, and a row is admitted
     only if the member's spend stays within the floor and the block within the budget;
  3. every row not yet admitted, in selection order, admitted if it fits.
  The first row admitted in a category pays its tags, whichever phase admits it.

Invalid share categories still leave the project workspaced: its own rows go through the
three phases, with a floor shared by every member.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass

from .model import LedgerMemory
from .reader import MEMORY_SCOPES, SHARE_CATEGORIES
from .rows import Admission

DEFAULT_SHARE_CATEGORIES: tuple[str, ...] = ("CONSTRAINTS",)
LIVE_STATUSES = frozenset({"active", "permanent"})


@dataclass(frozen=True, slots=True)
class WorkspaceMember:
    """One member project: its identity and the name its memories carry elsewhere."""

    identity: str
    display_name: str | None


@dataclass(frozen=True, slots=True)
class Workspace:
    """The workspace context of one project, as the plugin resolves it.

    ``members`` are every member, the project itself included, in turn order (see
    ``member_order``); ``share_categories`` the categories shared from other members.
    """

    own: str
    members: tuple[WorkspaceMember, ...]
    share_categories: tuple[str, ...]

    @property
    def is_shared(self) -> bool:
        """Return True when the project shares a workspace with at least one other project."""
        return len(self.members) > 1

    @property
    def turns(self) -> tuple[str, ...]:
        """Return the member identities in turn order."""
        return tuple(member.identity for member in self.members)

    def source_name(self, identity: str) -> str | None:
        """Return the name a memory of that member renders with here, or None."""
        if identity == self.own:
            return None
        for member in self.members:
            if member.identity == identity:
                return member.display_name or None
        return None


def member_order(members: Iterable[WorkspaceMember]) -> tuple[WorkspaceMember, ...]:
    """Return the members in upstream's turn order, each identity once (the first kept)."""
    ordered = sorted(
        members,
        key=lambda m: (m.display_name is not None, m.display_name or "", m.identity),
    )
    seen: set[str] = set()
    unique = []
    for member in ordered:
        if member.identity and member.identity not in seen:
            seen.add(member.identity)
            unique.append(member)
    return tuple(unique)


def parse_share_categories(raw: object) -> tuple[tuple[str, ...], str | None]:
    """Return the categories a ``share_categories`` value shares and the problem, if any.

    NULL shares CONSTRAINTS; a value that is not a JSON array of the five current names
    shares nothing, and the problem says why.
    """
    if raw is None:
        return DEFAULT_SHARE_CATEGORIES, None
    if not isinstance(raw, str):
        return (), f"{raw!r} is not text: no category is shared"
    try:
        parsed = json.loads(raw)
    except ValueError:
        return (), f"{raw!r} is not valid JSON: no category is shared"
    if not isinstance(parsed, list):
        return (), f"{raw!r} is not a JSON list: no category is shared"
    categories: list[str] = []
    for value in parsed:
        if not isinstance(value, str) or value not in SHARE_CATEGORIES:
            return (), f"{raw!r} names {value!r}, not one of the five current categories: " + (
                "no category is shared"
            )
        if value not in categories:
            categories.append(value)
    return tuple(sorted(categories)), None


def foreign_candidates(
    memories: Iterable[LedgerMemory], workspace: Workspace, *, now_ms: int
) -> list[LedgerMemory]:
    """Return the other members' rows this project may be given, each with its source name.

    A row is a candidate when it belongs to another member, is active or permanent and not
    expired, is in a shared category, ``shareable`` and of a known scope.
    """
    shared = frozenset(workspace.share_categories)
    others = {member.identity for member in workspace.members} - {workspace.own}
    candidates = []
    for memory in memories:
        if (
            memory.project in others
            and memory.status in LIVE_STATUSES
            and (memory.expires_at is None or memory.expires_at > now_ms)
            and memory.category in shared
            and memory.shareable == 1
            and (memory.scope or "project") in MEMORY_SCOPES
        ):
            candidates.append(memory._replace(source_name=workspace.source_name(memory.project)))
    return candidates


def admit_workspace(
    competitors: list[LedgerMemory],
    costs: list[int],
    *,
    budget: int,
    start: int,
    tag_costs: dict[str, int],
    workspace: Workspace,
) -> Admission:
    """Admit the competitors (in selection order) in the three phases of a workspace.

    The Admission lists the admitted positions ascending, each with the accounted total right
    after it was admitted; ``opened`` holds, per category, the position that paid its tags.
    """
    used = start
    admitted: dict[int, int] = {}
    opened: dict[str, int] = {}

    def cost_of(position: int) -> int:
        category = competitors[position].category
        return costs[position] + (0 if category in opened else tag_costs[category])

    def admit(position: int, cost: int) -> None:
        nonlocal used
        used += cost
        admitted[position] = used
        opened.setdefault(competitors[position].category, position)

    for position, memory in enumerate(competitors):  # 1. permanent rows
        if memory.status == "permanent":
            cost = cost_of(position)
            if used + cost <= budget:
                admit(position, cost)
    floor = max(0, budget - used) / max(1, len(workspace.members))
    by_member: dict[str, list[int]] = {}
    for position, memory in enumerate(competitors):
        if memory.status != "permanent":
            by_member.setdefault(memory.project or workspace.own, []).append(position)
    for identity in workspace.turns:  # 2. each member up to the floor
        spent = 0
        for position in by_member.get(identity, ()):
            cost = cost_of(position)
            if spent + cost > floor or used + cost > budget:
                continue
            admit(position, cost)
            spent += cost
    for position in range(len(competitors)):  # 3. fill
        if position not in admitted:
            cost = cost_of(position)
            if used + cost <= budget:
                admit(position, cost)
    positions = sorted(admitted)
    return Admission(positions, [admitted[p] for p in positions], start, opened, tag_costs)
