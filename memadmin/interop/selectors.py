"""Read what the interop page shows: the stores, their sync runs, and sessions per prompt surface."""

from collections import Counter
from dataclasses import dataclass, field

from django.db.models import Count, QuerySet

from memadmin.core.worddiff import word_diff
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import current_surface_hash

from .models import SyncConflict, SyncRun, UpstreamSession, UpstreamStore

SESSIONS_SHOWN = 50


def store_list() -> QuerySet[UpstreamStore]:
    """Return the stores synced from, newest sync first, with project and session counts."""
    return (
        UpstreamStore.objects.select_related("watermark")
        .annotate(
            project_count=Count("projects", distinct=True),
            session_count=Count("sessions", distinct=True),
        )
        .order_by("-last_synced_at", "-id")
    )


def store_detail(pk: int) -> UpstreamStore:
    """Return one store, or raise UpstreamStore.DoesNotExist."""
    return UpstreamStore.objects.get(pk=pk)


def recent_runs(limit: int = 10) -> list[SyncRun]:
    """Return the newest sync runs, refused ones included."""
    return list(SyncRun.objects.select_related("store").order_by("-started_at", "-id")[:limit])


@dataclass
class SurfaceSessions:
    """One project's sessions measured against its current prompt-surface hash."""

    project: Project | None
    identity: str
    surface_hash: str
    total: int = 0
    on_current: int = 0
    other_hashes: Counter = field(default_factory=Counter)
    differing: list[UpstreamSession] = field(default_factory=list)

    @property
    def differing_count(self) -> int:
        """Return how many sessions run on another hash than the current surface."""
        return self.total - self.on_current


def sessions_by_surface() -> list[SurfaceSessions]:
    """Return, per project, its sessions and those whose `system_prompt_hash` differs from
    the project's current prompt-surface hash (newest first, at most SESSIONS_SHOWN each).

    A session's hash is the plugin's fingerprint of the prompt it ran on; the surface hash
    is memadmin's digest of the prompt texts built from the project's criteria, and the one
    `export_criteria` writes into the store. A session whose hash differs from it ran on
    something other than the current criteria.
    """
    sessions = UpstreamSession.objects.select_related("project", "project__pack").order_by(
        "project_identity", "-updated_at", "session_id"
    )
    groups: dict[str, SurfaceSessions] = {}
    for session in sessions:
        group = groups.get(session.project_identity)
        if group is None:
            project = session.project
            surface = current_surface_hash(project) if project is not None else ""
            group = groups[session.project_identity] = SurfaceSessions(
                project=project, identity=session.project_identity, surface_hash=surface
            )
        group.total += 1
        if session.system_prompt_hash and session.system_prompt_hash == group.surface_hash:
            group.on_current += 1
            continue
        group.other_hashes[session.system_prompt_hash or ""] += 1
        if len(group.differing) < SESSIONS_SHOWN:
            group.differing.append(session)
    return list(groups.values())


def conflict_diff(conflict: SyncConflict) -> list:
    """Return the word diff from the store's text to memadmin's."""
    return word_diff(
        str(conflict.store_values.get("content", "")),
        str(conflict.memadmin_values.get("content", "")),
    )
