"""The interop app's models, one module per concern; Django finds them all here.

`stores`: the stores synced from, their projects, sessions, watermarks, sync runs, the
memories' bases and their conflicts; `derived`: what the sync derives from a store's rows
or still owes it; `workspaces`: a store's workspaces and members; `composites`: composites
published to a store; `worker`: the background worker's sync jobs and leases.
"""

from .composites import StoreComposite, StoreComposites
from .derived import PendingCriteria, SessionBlock, UnreadValue
from .stores import (
    StoreBase,
    StoreWatermark,
    SyncConflict,
    SyncRun,
    UpstreamProject,
    UpstreamSession,
    UpstreamStore,
)
from .worker import SyncJob, WorkerLease
from .workspaces import Workspace, WorkspaceMember

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
