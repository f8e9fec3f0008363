"""What the background worker keeps: the sync jobs asked for from the web, and its leases."""

from django.db import models

from ..writing.progress import PHASES
from .stores import SyncRun, UpstreamStore


class SyncJob(models.Model):
    """A sync asked for from the web and run by the background worker: its state and progress.

    The page polls it. Whatever happens to the job, its SyncRun is recorded: by the sync
    itself, by the task when the sync could not record it, or by `job_reap` when the worker
    went silent or the job ran past its time.
    """

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    store = models.ForeignKey(
        UpstreamStore, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    path = models.CharField(max_length=1000)
    requested_by = models.CharField(max_length=150)
    reason = models.CharField(max_length=500, blank=True, default="")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    phase = models.CharField(max_length=20, blank=True, default="")
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    queued_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")
    started_at = models.BigIntegerField(null=True, blank=True)
    heartbeat_at = models.BigIntegerField(null=True, blank=True)
    finished_at = models.BigIntegerField(null=True, blank=True)
    run = models.ForeignKey(
        SyncRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-queued_at", "-id"]

    def __str__(self) -> str:
        return f"{self.state} {self.path}"

    @property
    def active(self) -> bool:
        """Return True while the job waits or runs."""
        return self.state in (self.State.QUEUED, self.State.RUNNING)

    @property
    def phase_label(self) -> str:
        """Return what the sync is doing, in words."""
        if self.state == self.State.QUEUED:
            return "waiting for the background worker"
        return PHASES.get(self.phase, self.phase or "starting")

    @property
    def percent(self) -> int:
        """Return how far the current phase is, 0 to 100."""
        return min(100, self.done * 100 // self.total) if self.total else 0


class WorkerLease(models.Model):
    """A running background worker's word that it is alive, renewed every few seconds.

    A task a worker claimed is its own while the lease holds; once ``expires_at`` has passed,
    or, on the same host, its process ``pid`` is gone, the worker is taken as dead and its
    running tasks and sync jobs are closed (`interop.worker.leases`).
    """

    worker_id = models.CharField(max_length=64, unique=True)
    host = models.CharField(max_length=255)
    pid = models.PositiveIntegerField()
    renewed_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")
    expires_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")

    def __str__(self) -> str:
        return f"{self.worker_id} (process {self.pid} on {self.host})"
