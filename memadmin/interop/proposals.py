"""The agent's pending proposals for a synced project, read from its store for the pages.

Read-only: memadmin shows what upstream's curator proposed (``memory_tool_proposals``,
read by `memadmin.core.contextdb.proposals`), each target linked to memadmin's memory,
stale ones marked; it never applies one.
"""

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb.opening import open_readonly
from memadmin.core.contextdb.proposals import Proposal, read_proposals
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .store_writes import project_store


@dataclass
class ShownProposals:
    """A project's (or one memory's) proposals, their targets as memadmin's memories."""

    proposals: list[Proposal]
    memories: dict[int, Memory]
    unreadable: str = ""


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
    except sqlite3.DatabaseError as error:
        return ShownProposals([], {}, unreadable=str(error))
    finally:
        connection.close()
    targets = {target for proposal in proposals for target in proposal.target_ids}
    memories = {
        found.upstream_id: found
        for found in Memory.objects.filter(project=project, upstream_id__in=targets)
    }
    return ShownProposals(proposals, memories)
