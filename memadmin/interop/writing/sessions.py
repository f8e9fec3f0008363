"""The sync's last step for sessions: the store's `session_meta` rows as memadmin keeps them.

Called by `SyncWriter.sessions` inside the transaction of its memories step.
"""

from collections.abc import Iterable

from memadmin.core.contextdb import UpstreamSession as StoreSession
from memadmin.projects.models import Project

from ..models import UpstreamSession, UpstreamStore
from .bulk_rows import BATCH_SIZE

SESSION_FIELDS = ("project_identity", "project", "system_prompt_hash", "memory_block_ids")


def sessions_write(
    store: UpstreamStore, now: int, sessions: Iterable[StoreSession], identities: set[str] | None
) -> int:
    """Bring the store's sessions in (only those of ``identities`` when given)."""
    scoped = [
        s
        for s in sessions
        if (identities is None or s.project_path in identities) and len(s.session_id) <= 200
    ]
    rows = UpstreamSession.objects.filter(store=store)
    if identities is not None:
        rows = rows.filter(project_identity__in=identities)
    existing = {row.session_id: row for row in rows}
    project_pks = dict(
        Project.objects.filter(
            identity__in={s.project_path for s in scoped if s.project_path}
        ).values_list("identity", "pk")
    )
    new, changed = [], []
    for session in scoped:
        values = {
            "project_identity": session.project_path or "",
            "project_id": project_pks.get(session.project_path),
            "system_prompt_hash": (session.system_prompt_hash or "")[:200],
            "memory_block_ids": list(session.memory_block_ids or ()),
            "updated_at": session.updated_at,
        }
        row = existing.pop(session.session_id, None)
        if row is None:
            new.append(
                UpstreamSession(store=store, session_id=session.session_id, seen_at=now, **values)
            )
        elif any(getattr(row, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(row, name, value)
            changed.append(row)
    UpstreamSession.objects.bulk_create(new, batch_size=BATCH_SIZE)
    UpstreamSession.objects.bulk_update(changed, [*SESSION_FIELDS, "updated_at"], batch_size=500)
    UpstreamSession.objects.filter(pk__in=[row.pk for row in existing.values()]).delete()
    rows.update(seen_at=now)
    return len(scoped)
