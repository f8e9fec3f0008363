"""`manage.py run_worker`: run the background tasks, and refresh the synced stores every few seconds.

The tasks are queued in the database (django-tasks-db) and run by its worker, in this
process. Beside it a small scheduler thread queues the periodic `stores_refresh` task every
``--refresh-seconds`` unless one is already waiting or running (so one runs at a time, and
a slow one is skipped, never stacked), closes the jobs a dead worker left behind
(`job_reap`), and clears the finished refresh tasks from the queue table, so it does not
grow by one row every few seconds.
"""

import datetime
import threading

from django.core.management.base import BaseCommand
from django.db import OperationalError, close_old_connections, connection
from django.tasks import TaskResultStatus
from django.utils import timezone
from django.utils.crypto import get_random_string
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from memadmin.interop.sync_jobs import job_reap
from memadmin.interop.tasks import stores_refresh

REFRESH_PATH = f"{stores_refresh.func.__module__}.{stores_refresh.func.__qualname__}"
KEEP_FINISHED = datetime.timedelta(minutes=10)


def refresh_pending() -> bool:
    """Return True while a refresh task waits or runs."""
    return DBTaskResult.objects.filter(
        task_path=REFRESH_PATH, status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]
    ).exists()


def schedule_once() -> bool:
    """Queue a refresh unless one is pending; reap dead jobs; return True when one was queued."""
    job_reap()
    DBTaskResult.objects.filter(
        task_path=REFRESH_PATH,
        status=TaskResultStatus.SUCCESSFUL,
        finished_at__lt=timezone.now() - KEEP_FINISHED,
    ).delete()
    if refresh_pending():
        return False
    stores_refresh.enqueue()
    return True


class Scheduler(threading.Thread):
    """Call `schedule_once` every ``interval`` seconds until stopped."""

    def __init__(self, interval: float):
        super().__init__(name="memadmin-scheduler", daemon=True)
        self.interval = interval
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                close_old_connections()
                schedule_once()
            except OperationalError:
                pass  # the database is busy: try again next time
            self.stopped.wait(self.interval)
        connection.close()


class Command(BaseCommand):
    help = (
        "Run memadmin's background worker: syncs started from the web, and a refresh of "
        "every synced store every few seconds (--refresh-seconds 0 turns it off)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--refresh-seconds",
            type=float,
            default=2.0,
            help="how often to look for changes in the synced stores (default 2; 0: never)",
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=0.5,
            help="how long to wait between looks at an empty queue (default 0.5 s)",
        )
        parser.add_argument(
            "--batch", action="store_true", help="run the tasks queued now, then exit"
        )

    def handle(self, *args, **options):
        scheduler = None
        if options["refresh_seconds"] > 0 and not options["batch"]:
            scheduler = Scheduler(options["refresh_seconds"])
            scheduler.start()
        worker = Worker(
            queue_names=["default"],
            interval=options["interval"],
            batch=options["batch"],
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=get_random_string(32),
            excluded_queue_names=[],
        )
        if not options["batch"]:
            worker.configure_signals()
        try:
            worker.run()
        finally:
            if scheduler is not None:
                scheduler.stopped.set()
                scheduler.join(timeout=5)
