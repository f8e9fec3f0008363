"""`manage.py run_worker`: run the background tasks, and refresh the synced stores every few seconds.

The tasks are queued in the database (django-tasks-db) and run by its worker, in this
process. Beside it a small scheduler thread renews the worker's lease (`worker.leases`: how
a dead worker's tasks are told from a live one's), closes the tasks and jobs a dead worker
left running (`job_reap`), queues the periodic `stores_refresh` task every
``--refresh-seconds`` unless one is already waiting or running (so one runs at a time, and a
slow one is skipped, never stacked), and clears the finished refresh tasks from the queue
table, so it does not grow by one row every few seconds.

SIGTERM, SIGINT or SIGQUIT stop the worker: at once between tasks; during a task, once the
task ends or, after ``--stop-grace`` seconds, by an exception raised in it, which rolls back
the write it is in (a sync takes its new rows out again and records a failed run).
"""

import contextlib
import datetime
import signal
import threading
import time

from django.core.management.base import BaseCommand
from django.db import DatabaseError, OperationalError, close_old_connections, connection
from django.tasks import TaskResultStatus
from django.utils import timezone
from django.utils.crypto import get_random_string
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from memadmin.interop.worker.jobs import job_reap
from memadmin.interop.worker.leases import (
    BATCH_LEASE_MS,
    RENEW_SECONDS,
    lease_end,
    lease_renew,
)
from memadmin.interop.worker.tasks import stores_refresh

REFRESH_PATH = f"{stores_refresh.func.__module__}.{stores_refresh.func.__qualname__}"
KEEP_FINISHED = datetime.timedelta(minutes=10)
STOP_GRACE_SECONDS = 5.0


def refresh_pending() -> bool:
    """Return True while a refresh task waits or runs."""
    return DBTaskResult.objects.filter(
        task_path=REFRESH_PATH, status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]
    ).exists()


def schedule_once() -> bool:
    """Reap dead tasks and jobs; queue a refresh unless one is pending; True when one was queued."""
    job_reap()
    DBTaskResult.objects.filter(
        task_path=REFRESH_PATH,
        status__in=[TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED],
        finished_at__lt=timezone.now() - KEEP_FINISHED,
    ).delete()
    if refresh_pending():
        return False
    stores_refresh.enqueue()
    return True


class Scheduler(threading.Thread):
    """Renew the worker's lease every RENEW_SECONDS at most, and call `schedule_once` every
    ``interval`` seconds (never, when it is 0), until stopped."""

    def __init__(self, interval: float, worker_id: str):
        super().__init__(name="memadmin-scheduler", daemon=True)
        self.interval = interval
        self.worker_id = worker_id
        self.stopped = threading.Event()

    def run(self) -> None:
        tick = min(self.interval, RENEW_SECONDS) if self.interval > 0 else RENEW_SECONDS
        due = 0.0
        while not self.stopped.is_set():
            try:
                close_old_connections()
                lease_renew(self.worker_id)
                if self.interval > 0 and time.monotonic() >= due:
                    schedule_once()
                    due = time.monotonic() + self.interval
            except OperationalError:
                pass  # the database is busy: try again next time
            self.stopped.wait(tick)
        connection.close()


class WorkerStopped(SystemExit):
    """Raised in a task that did not end within the grace time of a stop signal.

    A SystemExit, as the stop is: raised from the signal handler it can land in the middle of
    a query, and psycopg then cancels that query in PostgreSQL and waits for the connection to
    be free again (it does so for SystemExit and KeyboardInterrupt only). Any other exception
    left the connection busy with the query, so the sync's undo and the failed run's record
    that follow could not use it, and the worker ended with status 1.
    """


class StoppingWorker(Worker):
    """django-tasks-db's worker, whose stop during a task waits ``grace`` seconds at most."""

    def __init__(self, *, grace: float, **options):
        super().__init__(**options)
        self.grace = grace

    def shutdown(self, signum, frame) -> None:
        if self.running and self.running_task:
            signal.signal(signal.SIGALRM, self._give_up)
            signal.setitimer(signal.ITIMER_REAL, max(self.grace, 0.001))
        super().shutdown(signum, frame)

    def _give_up(self, signum, frame) -> None:
        if self.running_task:
            raise WorkerStopped(f"the worker was stopped, {self.grace:g} s into the task")


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
        parser.add_argument(
            "--stop-grace",
            type=float,
            default=STOP_GRACE_SECONDS,
            help="how long a task may go on after SIGTERM before it is interrupted and "
            f"rolls back (default {STOP_GRACE_SECONDS:g} s)",
        )

    def handle(self, *args, **options):
        worker_id = get_random_string(32)
        scheduler = None
        # The lease is taken before any task is claimed under this id.
        if options["batch"]:
            lease_renew(worker_id, lasting=BATCH_LEASE_MS)
        else:
            lease_renew(worker_id)
            scheduler = Scheduler(options["refresh_seconds"], worker_id)
            scheduler.start()
        worker = StoppingWorker(
            grace=options["stop_grace"],
            queue_names=["default"],
            interval=options["interval"],
            batch=options["batch"],
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=worker_id,
            excluded_queue_names=[],
        )
        if not options["batch"]:
            worker.configure_signals()
        try:
            worker.run()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if scheduler is not None:
                scheduler.stopped.set()
                scheduler.join(timeout=5)
            with contextlib.suppress(DatabaseError):  # else it expires on its own
                lease_end(worker_id)
