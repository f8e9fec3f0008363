"""The interop app's models, one module per concern; Django finds them all here.

`stores`: the stores synced from, their projects, sessions, runs, jobs, watermarks, worker
leases, bases, conflicts and workspaces; `composites`: composites published to a store;
`derived`: what the sync derives from a store's rows or still owes it.
"""

from .composites import StoreComposite, StoreComposites
from .derived import PendingCriteria, SessionBlock, UnreadValue
from .stores import (
    StoreBase,
    StoreWatermark,
    SyncConflict,
    SyncJob,
    SyncRun,
    UpstreamProject,
    UpstreamSession,
    UpstreamStore,
    WorkerLease,
    Workspace,
    WorkspaceMember,
)

__all__ = [
    "PendingCriteria",
    "SessionBlock",
    "StoreBase",
    "StoreComposite",
    "StoreComposites",
    "StoreWatermark",
    "SyncConflict",
    "SyncJob",
    "SyncRun",
    "UnreadValue",
    "UpstreamProject",
    "UpstreamSession",
    "UpstreamStore",
    "WorkerLease",
    "Workspace",
    "WorkspaceMember",
]
