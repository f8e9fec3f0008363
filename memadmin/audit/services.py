"""Write audit events. Every service that changes the store calls `audit_record` in its transaction."""

from .actors import as_actor
from .context import current
from .models import AuditEvent
from .store_version import store_version_bump


def audit_record(
    *,
    action: str,
    target,
    actor=None,
    project=None,
    category: str = "",
    changes: dict | None = None,
    reason: str | None = None,
    object_type: str | None = None,
) -> AuditEvent:
    """Record one change by `actor` (default: the actor of the enclosing `acting` block)."""
    acting = current()
    if actor is None:
        if acting is None:
            raise ValueError("audit_record needs an actor (or an enclosing acting block)")
        resolved = acting.actor
    else:
        resolved = as_actor(actor)
    if reason is None:
        reason = acting.reason if acting else ""
    # Before the event: on PostgreSQL the bump queues writers, so events are in commit order.
    store_version_bump()
    return AuditEvent.objects.create(
        actor_label=resolved.label,
        actor_kind=resolved.kind,
        actor_user_id=resolved.user_id,
        action=action,
        project=project,
        object_type=object_type or target._meta.model_name,
        object_id=str(target.pk),
        object_repr=str(target)[:200],
        category=category or "",
        changes=changes or {},
        reason=reason or "",
    )
