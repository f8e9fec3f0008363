"""The dreamer's runs for a synced project, read from its store for the Dreamer runs page.

Read-only: what upstream's dreamer recorded in ``dream_runs`` (read by
`memadmin.core.contextdb.dream_runs`), each changed memory linked to memadmin's copy of it.
"""

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb.dream_runs import DreamRun, MemoryChange, read_dream_runs
from memadmin.core.contextdb.opening import open_readonly
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from ..write_through.store_writes import project_store


@dataclass
class ShownDreamRuns:
    """A project's runs and their changed memories as memadmin's, or why there are none.

    ``synced`` is False for a project no store syncs; ``present`` False for a store without
    ``dream_runs``; ``unreadable`` the error of a store that could not be read.
    """

    synced: bool
    present: bool = False
    runs: list[DreamRun] = field(default_factory=list)
    memories: dict[int, Memory] = field(default_factory=dict)
    unreadable: str = ""

    @property
    def rows(self) -> list[tuple[DreamRun, list[tuple[MemoryChange, Memory | None]]]]:
        """Return each run with its changes, each beside memadmin's memory (None: not in it)."""
        return [
            (run, [(change, self.memories.get(change.memory_id)) for change in run.changes])
            for run in self.runs
        ]


def project_dream_runs(project: Project) -> ShownDreamRuns:
    """Return the dreamer's last runs for the project, read from its store now."""
    upstream = project_store(project)
    if upstream is None:
        return ShownDreamRuns(synced=False)
    try:
        connection = open_readonly(Path(upstream.path), timeout=0.2)
    except StoreError as error:
        return ShownDreamRuns(synced=True, unreadable=str(error))
    try:
        found = read_dream_runs(connection, project.identity)
    except sqlite3.DatabaseError as error:
        return ShownDreamRuns(synced=True, unreadable=str(error))
    finally:
        connection.close()
    ids = {change.memory_id for run in found.runs for change in run.changes}
    memories = {
        memory.upstream_id: memory
        for memory in Memory.objects.filter(project=project, upstream_id__in=ids)
    }
    return ShownDreamRuns(synced=True, present=found.present, runs=found.runs, memories=memories)
