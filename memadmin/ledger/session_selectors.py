"""What each session of a project was really given, beside what the project would be given today.

A session's row in `session_meta` records the ids rendered into its memory block
(`memory_block_ids`) and, while the plugin caches it, the block's text
(`memory_block_cache`). Each recorded id is looked up today among the memories synced from
the same store: unchanged, changed since (updated after the session's last update), archived
since, or gone (no longer in the store, or never synced).
"""

import difflib
from dataclasses import dataclass, field

from django.db.models import Q

from memadmin.interop.models import UpstreamSession
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import current_surface_hash

SESSIONS_SHOWN = 50

UNCHANGED = "unchanged"
CHANGED = "changed since"
ARCHIVED = "archived since"
GONE = "gone"


@dataclass(frozen=True, slots=True)
class RecordedMemory:
    """One id a session's block carried, and that memory today."""

    memory_id: int
    state: str
    memory: Memory | None = None


@dataclass(frozen=True, slots=True)
class SessionView:
    """One session: its harness, whether it ran on today's prompt surface, what it was given."""

    session: UpstreamSession
    harness: str
    same_surface: bool | None
    recorded: list[RecordedMemory]
    block_text: str
    diff: list[tuple[str, str]] = field(default_factory=list)

    @property
    def states(self) -> dict[str, int]:
        """Return how many recorded ids are in each state."""
        counts: dict[str, int] = {}
        for item in self.recorded:
            counts[item.state] = counts.get(item.state, 0) + 1
        return counts


def line_diff(recorded: str, today: str) -> list[tuple[str, str]]:
    """Return a unified line diff of the recorded block against today's, as (kind, line).

    ``kind`` is ``add``, ``remove``, ``hunk`` or ``same``; empty when the blocks are equal.
    """
    kinds = {"+": "add", "-": "remove", "@": "hunk", " ": "same"}
    lines = difflib.unified_diff(
        recorded.splitlines(), today.splitlines(), "recorded", "today", lineterm=""
    )
    return [(kinds.get(line[:1], "same"), line) for line in lines]


def project_sessions(project: Project, *, today_block: str) -> list[SessionView]:
    """Return the project's sessions, newest first (at most SESSIONS_SHOWN), each explained."""
    sessions = list(
        UpstreamSession.objects.filter(Q(project=project) | Q(block__project=project))
        .select_related("block", "store")
        .distinct()
        .order_by("-updated_at", "session_id")[:SESSIONS_SHOWN]
    )
    ids = {i for s in sessions for i in s.memory_block_ids or () if isinstance(i, int)}
    memories = {
        (m.project.upstream_link.store_id, m.upstream_id): m
        for m in Memory.objects.filter(
            upstream_id__in=ids, project__upstream_link__store__in={s.store_id for s in sessions}
        ).select_related("project__upstream_link")
    }
    surface = current_surface_hash(project)
    views = []
    for session in sessions:
        block = getattr(session, "block", None)
        recorded = [
            _recorded(memory_id, memories.get((session.store_id, memory_id)), session)
            for memory_id in session.memory_block_ids or ()
            if isinstance(memory_id, int)
        ]
        text = block.block_text if block else ""
        views.append(
            SessionView(
                session=session,
                harness=block.harness if block else "",
                same_surface=(
                    session.system_prompt_hash == surface
                    if surface and session.system_prompt_hash
                    else None
                ),
                recorded=recorded,
                block_text=text,
                diff=line_diff(text, today_block) if text else [],
            )
        )
    return views


def _recorded(memory_id: int, memory: Memory | None, session: UpstreamSession) -> RecordedMemory:
    if memory is None or memory.upstream_gone_at is not None:
        return RecordedMemory(memory_id, GONE, memory)
    if memory.status == Memory.Status.ARCHIVED:
        return RecordedMemory(memory_id, ARCHIVED, memory)
    if session.updated_at is not None and memory.updated_at > session.updated_at:
        return RecordedMemory(memory_id, CHANGED, memory)
    return RecordedMemory(memory_id, UNCHANGED, memory)
