"""The background tasks of syncing (Django's tasks framework, queued in the database).

`manage.py run_worker` runs them: a sync asked for from the web, and the periodic refresh
that keeps every synced store fresh within seconds.
"""

from django.tasks import task

from .jobs import job_run


@task()
def store_sync(*, job_id: int) -> int | None:
    """Run the queued sync job ``job_id``; return the id of its SyncRun."""
    return job_run(job_id=job_id)


@task()
def stores_refresh() -> dict:
    """Bring every synced store's changes in, when a sync is not already running."""
    from .incremental import stores_refresh as refresh

    return refresh()
