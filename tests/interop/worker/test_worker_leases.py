"""A task the queue shows running is closed once its worker's lease is void, and only then."""

import pytest
from django_tasks_db.models import DBTaskResult

from memadmin.core.clock import now_ms
from memadmin.interop.models import SyncJob, UpstreamStore, WorkerLease
from memadmin.interop.worker.jobs import job_queue, job_reap
from memadmin.interop.worker.leases import LEASE_MS, lease_renew, orphans_close
from memadmin.interop.worker.tasks import stores_refresh
from memadmin.interop.writing.services import context_db_sync
from tests.interop.conftest import rows_for

pytestmark = pytest.mark.django_db(transaction=True)


def _claimed(worker_id: str) -> DBTaskResult:
    """Queue a refresh and let worker ``worker_id`` claim it, as the worker does."""
    result = DBTaskResult.objects.get(pk=stores_refresh.enqueue().id)
    result.claim(worker_id)
    return result


def _lease_elsewhere(worker_id: str, *, expires_at: int) -> None:
    WorkerLease.objects.create(
        worker_id=worker_id, host="another-host", pid=1, renewed_at=0, expires_at=expires_at
    )


def test_a_live_lease_keeps_its_task_running():
    """A task whose worker renews its lease is left alone."""
    lease_renew("alive")
    result = _claimed("alive")
    assert orphans_close() == []
    result.refresh_from_db()
    assert result.status == "RUNNING"


def test_an_expired_lease_closes_its_task():
    """On another host, a lease past its expiry voids the worker: its task is marked failed."""
    _lease_elsewhere("gone", expires_at=now_ms() - 1)
    result = _claimed("gone")
    assert [r.pk for r in orphans_close()] == [result.pk]
    result.refresh_from_db()
    assert result.status == "FAILED"
    assert "stopped" in result.traceback


def test_a_lease_on_another_host_holds_until_it_expires():
    """Another host's pid is not looked at: its unexpired lease holds."""
    _lease_elsewhere("far", expires_at=now_ms() + LEASE_MS)
    _claimed("far")
    assert orphans_close() == []


def test_a_task_without_a_lease_is_closed_only_when_old():
    """A worker that never held a lease (an older memadmin) gets LEASE_MS before its task
    is taken as dead."""
    result = _claimed("no-lease")
    assert orphans_close() == []
    assert [r.pk for r in orphans_close(now=now_ms() + LEASE_MS + 1000)] == [result.pk]


def test_the_sync_job_of_a_dead_worker_is_closed_with_a_failed_run(store):
    """A sync job whose worker died is closed at once, not after minutes of silence."""
    context_db_sync(path=store(rows=rows_for(3)))
    job = job_queue(store=UpstreamStore.objects.get(), actor="system")
    result = DBTaskResult.objects.get(status="READY", args_kwargs__kwargs__job_id=job.pk)
    _lease_elsewhere("dead", expires_at=now_ms() - 1)
    result.claim("dead")
    SyncJob.objects.filter(pk=job.pk).update(state="running", started_at=now_ms())
    assert job_reap() == 1
    job.refresh_from_db()
    assert job.state == "failed"
    assert job.run.outcome == "failed"
    assert "its process is gone or its lease expired" in job.run.problems[0]["problem"]
