"""The agent's pending proposals for a synced project, read from its store for the pages.

Read-only: memadmin shows what upstream's curator proposed (``memory_tool_proposals``,
read by `memadmin.core.contextdb.proposals`), each target linked to memadmin's memory,
stale ones marked, with the word diff between the targets now and what the proposal would
make; it never applies or declines one. Upstream has no path for a human decision on a
proposal (`docs/store-protocol.md`, "The agent's proposals"), so the queue says so.
"""

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb.opening import open_readonly
from memadmin.core.contextdb.proposals import (
    Proposal,
    ProposedChange,
    proposed_change,
    read_proposals,
)
from memadmin.core.contextdb.write_checks import authority_holds
from memadmin.core.worddiff import DiffOp, word_diff
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from ..write_through.store_writes import project_store

# The sentence every page showing the queue says, once.
NO_HUMAN_DECISION = (
    "Upstream records no human decision on a proposal: its store has no state for one and "
    "nothing in the plugin applies or declines a proposal, so memadmin shows the queue "
    "read-only. To act on one, make the change yourself on the memory's page (it is written "
    "with upstream's revision check); the proposal then shows as stale."
)


@dataclass(frozen=True, slots=True)
class ShownProposal:
    """One proposal as a page shows it: its targets, what it would make, the word diff."""

    proposal: Proposal
    targets: list[tuple[int, Memory | None]]
    change: ProposedChange
    diff: list[DiffOp]
    foreign_ids: list[int]


@dataclass
class ShownProposals:
    """A project's (or one memory's) proposals, their targets as memadmin's memories."""

    proposals: list[Proposal]
    memories: dict[int, Memory]
    unreadable: str = ""
    authority: str = ""
    rows: list[ShownProposal] = field(default_factory=list)


def pending_proposals(project: Project, memory: Memory | None = None) -> ShownProposals | None:
    """Return the proposals of a synced project (naming ``memory`` if given); None unsynced."""
    if memory is not None and memory.upstream_id is None:
        return None  # a memory the store lacks has no proposal (and costs no query)
    upstream = project_store(project)
    if upstream is None:
        return None
    try:
        connection = open_readonly(Path(upstream.path), timeout=0.2)
    except StoreError as error:
        return ShownProposals([], {}, unreadable=str(error))
    try:
        proposals = read_proposals(
            connection, project.identity, memory.upstream_id if memory is not None else None
        )
        authority = authority_holds(connection, project.identity) if proposals else ""
    except sqlite3.DatabaseError as error:
        return ShownProposals([], {}, unreadable=str(error))
    finally:
        connection.close()
    targets = {target for proposal in proposals for target in proposal.target_ids}
    memories = {
        found.upstream_id: found
        for found in Memory.objects.filter(project=project, upstream_id__in=targets)
    }
    shown = ShownProposals(proposals, memories, authority=authority)
    for proposal in proposals:
        change = proposed_change(proposal)
        shown.rows.append(
            ShownProposal(
                proposal=proposal,
                targets=[(target, memories.get(target)) for target in proposal.target_ids],
                change=change,
                diff=word_diff(change.before, change.after) if change.kind == "text" else [],
                foreign_ids=[
                    target.id
                    for target in proposal.targets_now.values()
                    if target.project_path != project.identity
                ],
            )
        )
    return shown
