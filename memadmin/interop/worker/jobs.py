"""Syncs run by the background worker: queue one, run it with progress, record it whatever happens.

A sync asked for on the Import/export page becomes a SyncJob and a task (`tasks.py`); the
request returns at once. The worker runs the task, which writes the job's phase and counts
as it goes (short autocommit updates, at most a few a second) and links the SyncRun the
sync recorded. A sync that ends without one (the task itself failed) gets a failed run
here. A job whose worker died (its lease void, `worker.leases`), went silent, or that ran
past its time, is closed by `job_reap` with a failed run saying so: the page never waits
for ever.
"""

import time

from django.db import transaction

from memadmin.audit.actors import as_actor
from memadmin.core.clock import now_ms

from ..models import SyncJob, SyncRun, UpstreamStore
from ..writing.services import SyncRefused, context_db_sync
from .leases import orphans_close, task_job_id

PROGRESS_INTERVAL_SECONDS = 0.5
# A running job whose worker has not written for this long is taken as dead.
SILENT_MS = 5 * 60 * 1000
# No sync may run longer than this, nor wait for a worker longer.
JOB_TIMEOUT_MS = 60 * 60 * 1000
QUEUE_TIMEOUT_MS = 30 * 60 * 1000


def job_queue(*, store: UpstreamStore, actor, reason: str = "") -> SyncJob:
    """Queue a sync of ``store`` from the path it was last read at; return its job.

    A sync of the store already waiting for the worker is that job: asking twice queues one.
    """
    from .tasks import store_sync  # the task module imports this one

    label = as_actor(actor).label
    with transaction.atomic():
        waiting = SyncJob.objects.filter(store=store, state=SyncJob.State.QUEUED).first()
        if waiting is not None:
            return waiting
        job = SyncJob.objects.create(
            store=store,
            path=store.path,
            requested_by=label,
            reason=reason[:500],
            queued_at=now_ms(),
        )
        transaction.on_commit(lambda: store_sync.enqueue(job_id=job.pk))
    return job


class _Progress:
    """Write a job's phase and counts, at most every PROGRESS_INTERVAL_SECONDS."""

    def __init__(self, job: SyncJob):
        self.job = job
        self.last = 0.0
        self.phase = ""

    def __call__(self, phase: str, done: int, total: int) -> None:
        moment = time.monotonic()
        if phase == self.phase and moment - self.last < PROGRESS_INTERVAL_SECONDS:
            return
        self.phase, self.last = phase, moment
        SyncJob.objects.filter(pk=self.job.pk).update(
            phase=phase, done=done, total=total, heartbeat_at=now_ms()
        )


def job_run(*, job_id: int) -> int | None:
    """Run a queued job's sync; return its SyncRun's id. Never leave the job unrecorded."""
    job = SyncJob.objects.filter(pk=job_id, state=SyncJob.State.QUEUED).first()
    if job is None:
        return None  # reaped, or run by another worker already
    started = now_ms()
    SyncJob.objects.filter(pk=job.pk).update(
        state=SyncJob.State.RUNNING, started_at=started, heartbeat_at=started
    )
    try:
        run = context_db_sync(
            path=job.path,
            reason=job.reason or f"sync asked for by {job.requested_by}",
            progress=_Progress(job),
        )
    except SyncRefused as refused:
        _finish(job, SyncJob.State.DONE, refused.run)
        return refused.run.pk
    except BaseException as error:
        run = _failed_run_since(job, started) or failure_record(
            path=job.path, store=job.store, reason=f"the sync task failed: {error!r}"
        )
        _finish(job, SyncJob.State.FAILED, run, error=repr(error))
        raise
    _finish(job, SyncJob.State.DONE, run)
    return run.pk


def _failed_run_since(job: SyncJob, started: int) -> SyncRun | None:
    """Return the failed run the sync recorded for this job, if it recorded one."""
    return (
        SyncRun.objects.filter(
            path=job.path, outcome=SyncRun.Outcome.FAILED, started_at__gte=started
        )
        .order_by("-id")
        .first()
    )


def _finish(job: SyncJob, state: str, run: SyncRun | None, *, error: str = "") -> None:
    SyncJob.objects.filter(pk=job.pk).update(
        state=state, run=run, finished_at=now_ms(), error=error[:2000]
    )


def failure_record(*, path: str, store: UpstreamStore | None, reason: str) -> SyncRun:
    """Record a sync that stopped without recording itself, with the reason."""
    return SyncRun.objects.create(
        store=store,
        path=path[:1000],
        outcome=SyncRun.Outcome.FAILED,
        actor_label="import",
        started_at=now_ms(),
        problem_count=1,
        problems=[{"table": "", "row": None, "column": "", "problem": reason[:2000]}],
    )


def job_reap(*, now: int | None = None) -> int:
    """Close the jobs that cannot finish any more, each with a failed run; return how many.

    Those are jobs whose task's worker is dead (`orphans_close`: the task is closed too),
    running jobs whose worker wrote nothing for SILENT_MS, jobs running past JOB_TIMEOUT_MS
    and jobs no worker took in QUEUE_TIMEOUT_MS.
    """
    from .tasks import store_sync  # the task module imports this one

    now = now_ms() if now is None else now
    reaped = 0
    sync_path = f"{store_sync.func.__module__}.{store_sync.func.__qualname__}"
    orphaned = [task_job_id(t) for t in orphans_close(now=now) if t.task_path == sync_path]
    for job in SyncJob.objects.filter(
        pk__in=[pk for pk in orphaned if pk is not None],
        state__in=[SyncJob.State.QUEUED, SyncJob.State.RUNNING],
    ):
        reaped += _reap(
            job, "the worker stopped while syncing (its process is gone or its lease expired)"
        )
    running = SyncJob.objects.filter(state=SyncJob.State.RUNNING)
    queued = SyncJob.objects.filter(state=SyncJob.State.QUEUED)
    for job in running.filter(heartbeat_at__lt=now - SILENT_MS):
        reaped += _reap(job, "the worker stopped while syncing (no sign of life for 5 minutes)")
    for job in running.filter(started_at__lt=now - JOB_TIMEOUT_MS):
        reaped += _reap(job, "the sync ran past its time limit of an hour and was given up")
    for job in queued.filter(queued_at__lt=now - QUEUE_TIMEOUT_MS):
        reaped += _reap(
            job, "no worker took the sync within 30 minutes: is `manage.py run_worker` running?"
        )
    return reaped


def _reap(job: SyncJob, reason: str) -> int:
    with transaction.atomic():
        claimed = SyncJob.objects.filter(pk=job.pk, state=job.state).update(
            state=SyncJob.State.FAILED, finished_at=now_ms(), error=reason
        )
        if claimed:
            run = failure_record(path=job.path, store=job.store, reason=reason)
            SyncJob.objects.filter(pk=job.pk).update(run=run)
    return claimed


def active_jobs() -> list[SyncJob]:
    """Return the jobs waiting or running, oldest first."""
    return list(
        SyncJob.objects.filter(state__in=[SyncJob.State.QUEUED, SyncJob.State.RUNNING])
        .select_related("store")
        .order_by("queued_at", "id")
    )


__all__ = ["active_jobs", "failure_record", "job_queue", "job_reap", "job_run"]
