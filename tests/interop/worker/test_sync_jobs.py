"""A sync run by the background worker records its run whatever happens to it."""

import pytest
from django.core.management import call_command

from memadmin.core.clock import now_ms
from memadmin.interop.models import SyncJob, SyncRun, UpstreamStore
from memadmin.interop.worker import jobs
from memadmin.interop.worker.jobs import SILENT_MS, job_queue, job_reap
from memadmin.interop.writing.services import context_db_sync
from tests.interop.conftest import rows_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def known_store(store):
    path = store(rows=rows_for(3))
    context_db_sync(path=path)
    return UpstreamStore.objects.get()


def test_a_queued_sync_runs_in_the_worker_and_links_its_run(known_store):
    """The job goes from queued to done, with the run the sync recorded."""
    job = job_queue(store=known_store, actor="system")
    assert SyncJob.objects.get().state == "queued"
    call_command("run_worker", "--batch")
    job.refresh_from_db()
    assert (job.state, job.run.outcome, job.run.unchanged) == ("done", "synced", 3)
    assert job.started_at and job.finished_at and job.heartbeat_at


def test_asking_twice_queues_one_sync(known_store):
    """A second request while the first still waits joins it."""
    first = job_queue(store=known_store, actor="system")
    assert job_queue(store=known_store, actor="system") == first
    call_command("run_worker", "--batch")
    assert SyncRun.objects.count() == 2
    assert job_queue(store=known_store, actor="system") != first


def test_a_task_that_dies_records_a_failed_run_with_the_reason(known_store, monkeypatch):
    """A task stopped by something the sync could not record still leaves a failed run."""

    def killed(**options):
        raise SystemExit("worker told to stop")

    monkeypatch.setattr(jobs, "context_db_sync", killed)
    job = job_queue(store=known_store, actor="system")
    call_command("run_worker", "--batch")
    job.refresh_from_db()
    assert job.state == "failed"
    assert job.run.outcome == "failed"
    assert "worker told to stop" in job.run.problems[0]["problem"]


def test_a_job_whose_worker_went_silent_is_closed_with_a_failed_run(known_store):
    """A running job with no sign of life for minutes is given up, and says why."""
    job = job_queue(store=known_store, actor="system")
    long_ago = now_ms() - SILENT_MS - 1000
    SyncJob.objects.filter(pk=job.pk).update(
        state="running", started_at=long_ago, heartbeat_at=long_ago
    )
    assert job_reap() == 1
    job.refresh_from_db()
    assert job.state == "failed"
    assert "the worker stopped while syncing" in job.run.problems[0]["problem"]
    assert SyncRun.objects.filter(outcome="failed").count() == 1
    call_command("run_worker", "--batch")  # the queued task finds its job closed
    assert SyncRun.objects.count() == 2
