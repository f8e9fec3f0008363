"""Tell a live background worker from a dead one: a lease each worker renews every few seconds.

Each `run_worker` process holds a `WorkerLease`, renewed by its scheduler thread every
RENEW_SECONDS and good for LEASE_MS. A task the queue still shows running belongs to a dead
worker when that worker's lease has expired, when its process is gone (a lease taken on this
host names its pid, so a killed worker is seen at once), or when it never held a lease.
`orphans_close` marks such tasks failed, so that the next refresh is queued and runs instead
of waiting for ever behind a row that says "running".
"""

import os
import socket

from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from memadmin.core.clock import now_ms

from ..models import WorkerLease

RENEW_SECONDS = 2.0
LEASE_MS = 15_000
# A worker run with --batch renews no lease: its one lease lasts as long as a sync may.
BATCH_LEASE_MS = 60 * 60 * 1000
DEAD_WORKER = "memadmin.interop.worker.leases.WorkerDied"
DEAD_REASON = "the worker running this task stopped (its process is gone or its lease expired)"


def lease_renew(worker_id: str, *, now: int | None = None, lasting: int = LEASE_MS) -> None:
    """Take or renew the lease of worker ``worker_id``, this process, for ``lasting`` ms."""
    now = now_ms() if now is None else now
    WorkerLease.objects.update_or_create(
        worker_id=worker_id,
        defaults={
            "host": socket.gethostname()[:255],
            "pid": os.getpid(),
            "renewed_at": now,
            "expires_at": now + lasting,
        },
    )


def lease_end(worker_id: str) -> None:
    """Give the lease up: the worker is stopping."""
    WorkerLease.objects.filter(worker_id=worker_id).delete()


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # someone else's process holds the pid
    return False


def lease_void(lease: WorkerLease | None, *, now: int) -> bool:
    """Return True when ``lease`` no longer vouches for its worker."""
    if lease is None or lease.expires_at < now:
        return True
    return lease.host == socket.gethostname()[:255] and _process_gone(lease.pid)


def orphans_close(*, now: int | None = None) -> list[DBTaskResult]:
    """Mark failed every running task whose worker is dead; return the tasks closed.

    A task claimed less than LEASE_MS ago by a worker without a lease is left alone: a
    worker of an older memadmin, which held none, may still be running it.
    """
    now = now_ms() if now is None else now
    running = list(DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING))
    if not running:
        return []
    owners = {result.worker_ids[-1] for result in running if result.worker_ids}
    leases = {lease.worker_id: lease for lease in WorkerLease.objects.filter(worker_id__in=owners)}
    closed = []
    for result in running:
        owner = result.worker_ids[-1] if result.worker_ids else None
        lease = leases.get(owner)
        started = int(result.started_at.timestamp() * 1000) if result.started_at else 0
        if lease is None and now - started < LEASE_MS:
            continue
        if not lease_void(lease, now=now):
            continue
        claimed = DBTaskResult.objects.filter(pk=result.pk, status=TaskResultStatus.RUNNING).update(
            status=TaskResultStatus.FAILED,
            finished_at=timezone.now(),
            exception_class_path=DEAD_WORKER,
            traceback=DEAD_REASON,
        )
        if claimed:
            closed.append(result)
    WorkerLease.objects.filter(expires_at__lt=now - LEASE_MS).delete()
    return closed


def task_job_id(result: DBTaskResult) -> int | None:
    """Return the sync job a `store_sync` task ran, from its arguments."""
    job_id = (result.args_kwargs or {}).get("kwargs", {}).get("job_id")
    return job_id if isinstance(job_id, int) else None
