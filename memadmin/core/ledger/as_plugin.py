"""Assemble a project the way a given plugin reads it: rows read, workspace shared, then selected.

``read_for_mode(...)`` applies the row reader of the mode's plugin (see ``reader``) to the
project's memories and adds the workspace's foreign candidates (see ``workspace``);
``assemble_read(...)`` assembles the result and lists the rows the reader dropped:

- ``plugin``: the stock plugin; its twelve categories and defaults, the fixed render order;
- ``pack``: a plugin reading the project's pack; the pack's categories in its order;
- ``headers``: Proposal 3's table of contents over every row memadmin holds (no reader).

All three share a workspace the same way.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from .assembly import assemble_prepared, validate
from .model import (
    BUDGET_MIN,
    LedgerComposite,
    LedgerMemory,
    LedgerResult,
    Mode,
    TieBreak,
    TokenCounter,
)
from .patching import RowRead, read_rows_again
from .prepared import PreparedStore
from .reader import CATEGORY_PRIORITY, PLUGIN_ASSUMED, DroppedRow, read_rows
from .render import PRIORITY_CATEGORIES
from .workspace import Workspace, foreign_candidates


@dataclass(frozen=True, slots=True)
class ReadStore:
    """A project's memories as one plugin reads them, prepared for assembly."""

    mode: Mode
    store: PreparedStore
    dropped: tuple[DroppedRow, ...]
    priority: tuple[str, ...]
    workspace: Workspace | None
    foreign: tuple[LedgerMemory, ...] = ()
    row_read: RowRead | None = None  # the reader's pass, patched after an edit (not headers)


@dataclass(frozen=True, slots=True)
class MemberShare:
    """What one workspace member contributes to a project's injection."""

    identity: str
    name: str
    own: bool
    candidates: int
    injected: int
    tokens: int


def read_for_mode(
    memories: Iterable[LedgerMemory],
    composites: Iterable[LedgerComposite] = (),
    *,
    mode: Mode,
    now_ms: int,
    pack_categories: Sequence[str] = (),
    workspace: Workspace | None = None,
    others: Iterable[LedgerMemory] = (),
) -> ReadStore:
    """Return the project read as the mode's plugin reads it, with the workspace's candidates.

    ``others`` are the other members' memories (every row; the candidates are chosen here);
    ``pack_categories`` the pack's categories in priority order (pack mode).
    """
    options = {"now_ms": now_ms, "pack_categories": pack_categories, "workspace": workspace}
    reads = read_for_modes(memories, composites, modes=(mode,), others=others, **options)
    return reads[mode]


def read_for_modes(
    memories: Iterable[LedgerMemory],
    composites: Iterable[LedgerComposite] = (),
    *,
    modes: Sequence[Mode],
    now_ms: int,
    pack_categories: Sequence[str] = (),
    workspace: Workspace | None = None,
    others: Iterable[LedgerMemory] = (),
    previous: Mapping[str, ReadStore] | None = None,
) -> dict[str, ReadStore]:
    """Return ``read_for_mode`` for each mode; modes that read the same rows share one store.

    Most stores hold only the plugin's categories, every importance set and no workspace:
    then plugin, pack and headers mode read the very same rows, prepared once. Given the
    ``previous`` reads of the same project, each mode's store is patched from its previous
    one where only a few memories changed (``PreparedStore.edited``), with the same result.
    """
    for mode in modes:
        validate(BUDGET_MIN, mode, "recent")
    memories, composites = list(memories), list(composites)
    foreign: list[LedgerMemory] = []
    if workspace is not None and workspace.is_shared:
        foreign = foreign_candidates(others, workspace, now_ms=now_ms)
    reads: dict[str, ReadStore] = {}
    for mode in modes:
        rows, dropped, shared = memories, (), foreign
        priority = PRIORITY_CATEGORIES
        hint = previous.get(mode) if previous else None
        row_read = None
        if mode != "headers":
            pack = mode == "pack"
            categories = tuple(pack_categories) if pack else CATEGORY_PRIORITY
            row_read = read_rows_again(
                hint.row_read if hint is not None else None,
                memories,
                categories=categories,
                pack=pack,
                now_ms=now_ms,
            )
            rows, dropped = row_read.kept, row_read.dropped
            shared, _ = read_rows(foreign, categories=categories, pack=pack)
            if pack:
                priority = tuple(pack_categories)
        foreign_rows: tuple[LedgerMemory, ...] = ()
        if shared:
            own_ids = {memory.id for memory in rows}
            foreign_rows = tuple(memory for memory in shared if memory.id not in own_ids)
            rows = [*rows, *foreign_rows]
        store = next(
            (read.store for read in reads.values() if _same_rows(read.store.memories, rows)),
            None,
        )
        if store is None:
            store = (
                hint.store.edited(rows, composites, now_ms=now_ms)
                if hint is not None
                else PreparedStore(rows, composites, now_ms=now_ms)
            )
            for read in reads.values():
                store.share_lines(read.store)  # the same texts, kept once
                break
        reads[mode] = ReadStore(
            mode, store, tuple(dropped), priority, workspace, foreign_rows, row_read
        )
    return reads


def _same_rows(left: list[LedgerMemory], right: list[LedgerMemory]) -> bool:
    return len(left) == len(right) and all(a is b for a, b in zip(left, right, strict=True))


def assemble_read(
    read: ReadStore, *, budget: int, counter: TokenCounter, tie_break: TieBreak = "recent"
) -> LedgerResult:
    """Return the injection of a read project, with the rows its reader dropped."""
    result = assemble_prepared(
        read.store,
        budget=budget,
        counter=counter,
        mode=read.mode,
        tie_break=tie_break,
        priority=read.priority,
        workspace=read.workspace,
    )
    # The rows the reader dropped are live (it checks live rows only): the share counts them.
    coverage = replace(result.coverage, live=result.coverage.eligible + len(read.dropped))
    return replace(
        result, coverage=coverage, dropped=read.dropped, assumes=PLUGIN_ASSUMED[read.mode]
    )


def member_shares(read: ReadStore, result: LedgerResult) -> list[MemberShare]:
    """Return what each workspace member contributes, in turn order (empty when unshared)."""
    workspace = read.workspace
    if workspace is None or not workspace.is_shared:
        return []
    by_id = read.store.by_id
    candidates: dict[str, int] = {}
    injected: dict[str, int] = {}
    tokens: dict[str, int] = {}
    for memory in read.store.candidates:
        identity = memory.project or workspace.own
        candidates[identity] = candidates.get(identity, 0) + 1
    for row in result.rows:
        if row.injected:
            identity = by_id[row.memory_id].project or workspace.own
            injected[identity] = injected.get(identity, 0) + 1
            tokens[identity] = tokens.get(identity, 0) + row.tokens
    return [
        MemberShare(
            identity=member.identity,
            name=member.display_name or member.identity,
            own=member.identity == workspace.own,
            candidates=candidates.get(member.identity, 0),
            injected=injected.get(member.identity, 0),
            tokens=tokens.get(member.identity, 0),
        )
        for member in workspace.members
    ]
