"""Sync memadmin from a magic-context store: read it read-only, plan, then write all or nothing.

The store is read read-only (`memadmin.core.contextdb`); only the pushes (`writing.pushes`,
then the composites', unless pull-only) write to it, with the base check. Every row is
checked and the whole plan made, outside any write transaction, before the first write; a
single problem refuses the sync with every problem listed (row, column, problem) and
nothing imported. The writes then run with actor "import" (`writing.writer`) in short
transactions: rows new to memadmin first, in chunks, then everything that changes an
existing row in one last transaction, which first checks that no memory in scope changed
since the plan was made (else the sync undoes its new rows and plans again). A failure at
any point takes the new rows out again. Syncs run one at a time (`writing.lock`). Each run,
refused and failed ones included, leaves a SyncRun summary (`writing.runs`).
"""

from collections.abc import Callable
from contextlib import closing, nullcontext
from pathlib import Path

from django.db import transaction

from memadmin.audit.context import acting
from memadmin.core.contextdb import StoreError, StoreRead, inspect_store
from memadmin.core.contextdb.changes import read_changed, store_marks
from memadmin.core.contextdb.opening import DEFAULT_TIMEOUT_SECONDS
from memadmin.core.contextdb.ranges import StoreRanges
from memadmin.core.contextdb.reading import read_sessions
from memadmin.core.packs import PackError, PackNotFoundError, PackSpec
from memadmin.memories.models import Memory
from memadmin.taxonomy.services import pack_load

from ..composites.readback import composites_after_sync
from ..models import StoreBase, StoreWatermark, SyncRun, UpstreamStore, Workspace
from ..planning.plan import SyncPlan
from ..planning.planned import Planned, Refusal, plan_changed, plan_whole
from ..workspaces.sync import store_extras_sync
from ..write_through.store_writes import OFF, store_mode
from .lock import SyncBusy, sync_lock
from .moved import history_mark, moved_since, plan_leave_out, plan_touches
from .page_cache import sync_page_cache
from .pushes import store_push, sync_settle
from .runs import RunBook, SyncRefused, problem_text, run_record
from .writer import SyncWriter

DEFAULT_PACK = "magic-context"
# The last attempt leaves the rows people keep saving out, rather than plan again.
PLAN_ATTEMPTS = 3

Progress = Callable[[str, int, int], None]


def _silent(phase: str, done: int, total: int) -> None:
    """Report no progress."""


def context_db_sync(
    *,
    path: str | Path,
    actor="import",
    project: str = "",
    pack: str | None = DEFAULT_PACK,
    reason: str = "",
    progress: Progress | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    lock_wait: float | None = None,
    incremental: bool = False,
    record_empty: bool = True,
    pull_only: bool = False,
) -> SyncRun | None:
    """Bring the memories and sessions of a store into memadmin; return the run's summary.

    ``project`` limits the sync to one project identity. A project the store holds and
    memadmin does not is created, with ``pack`` installed (none when ``pack`` is None).
    Raise SyncRefused, having written nothing but the refused run's record, when the file
    is not a readable store or any row cannot be imported as it is. ``timeout`` is how
    long to wait for a store another process holds locked; ``lock_wait`` how long to wait
    for another sync to finish (None: until it does) before raising SyncBusy. Any other
    error is recorded as a failed run, with its reason, and raised.

    ``incremental`` reads only the rows changed since the store's watermarks (and every id,
    for deletions), when it has them; a store not synced yet is read whole. Without
    ``record_empty`` a sync that finds nothing to change records no run and returns None;
    the watermark's ``checked_at`` says when the store was last looked at.

    Rows memadmin changed since its base are pushed to the store or kept as conflicts
    (`writing.pushes`), unless ``pull_only`` (or ``MEMADMIN_STORE_WRITES=off``) takes the
    store's rows as they are. While memadmin holds changes not in the store yet, an
    incremental sync reads the store whole, so that they are pushed.
    """
    path = Path(path)
    report = progress or _silent
    run = RunBook(path=path, project=project, actor=actor)
    run.pull_only = pull_only or store_mode() == OFF
    with (
        acting(actor=actor, reason=reason or f"sync from {path}", new_change=True),
        sync_lock(wait=lock_wait),
        sync_page_cache(),
    ):
        try:
            synced = _sync(run, report, pack, timeout, incremental, record_empty)
            return composites_after_sync(synced, path, push=not run.pull_only)
        except (SyncRefused, SyncBusy):
            raise
        except BaseException as error:  # a stopped worker's interruption included
            run.fail(f"the sync stopped on an error, nothing was imported: {error!r}")
            raise


def _sync(
    run: RunBook, report: Progress, pack, timeout: float, incremental: bool, record_empty: bool
) -> SyncRun | None:
    report("read", 0, 1)
    try:
        info = inspect_store(run.path, timeout=timeout, projects=False)
        store_key = info.store_uuid or f"path:{run.path.resolve()}"
        known = _watermark(store_key)
        watermark = known if incremental and not run.project else None
        if watermark is not None and not run.pull_only and _pending(watermark.store_id):
            watermark = None
        if watermark is not None:
            marks = store_marks(run.path, timeout=timeout)
            if marks == watermark.marks():
                watermark.checked(run.started, run.duration_ms())
                return None
            changed = read_changed(run.path, watermark.marks(), now=marks, timeout=timeout)
            sessions, session_problems = read_sessions(run.path, timeout=timeout)
            read = StoreRead(changed.memories, sessions, changed.problems + session_problems)
            marks = changed.marks
        else:
            # A full read: the plan reads the store by ranges (`planning.ranges`).
            changed, read = None, None
            marks = store_marks(run.path, timeout=timeout)
    except StoreError as error:
        raise run.refuse([str(error)]) from error
    report("read", 1, 1)
    warnings = [] if read is None else [p for p in read.problems if p.table != "memories"]
    attempt = 1
    while True:
        try:
            return _plan_and_write(
                run,
                read,
                info,
                store_key,
                pack,
                warnings,
                report,
                _Marks(marks, changed, record_empty, None if known is None else known.marks()),
                timeout,
                last_attempt=attempt == PLAN_ATTEMPTS,
            )
        except Refusal as refusal:
            raise run.refuse(
                refusal.messages, store=refusal.store, problems=refusal.problems, warnings=warnings
            ) from None
        except _Moved:
            attempt += 1


def _watermark(store_key: str) -> StoreWatermark | None:
    return StoreWatermark.objects.filter(store__store_uuid=store_key).first()


def _pending(store_pk: int) -> bool:
    """Return True when memadmin holds a change to the store's memories or workspaces not pushed."""
    # The pending bases first (a partial index), then their memories: asked the other way
    # round, the database walks every base of the store's projects.
    pending = StoreBase.objects.filter(pending_since__isnull=False).values("memory_id")
    return (
        Memory.objects.filter(project__upstream_link__store_id=store_pk, pk__in=pending).exists()
        or Workspace.objects.filter(store_id=store_pk, pending_since__isnull=False).exists()
    )


class _Marks:
    """The store's marks read with this sync, and what an incremental read found."""

    def __init__(self, marks, changed, record_empty: bool, previous=None):
        self.marks = marks
        self.changed = changed
        self.record_empty = record_empty
        self.previous = previous

    @property
    def workspaces_moved(self) -> bool:
        """Return True when the workspace tables changed since the marks last kept."""
        return self.previous is None or self.previous.workspaces != self.marks.workspaces

    @property
    def incremental(self) -> bool:
        return self.changed is not None


class _Moved(Exception):
    """A memory the plan writes was saved between the plan and its last transaction."""


def _plan_and_write(
    run: RunBook,
    read,
    info,
    store_key: str,
    pack,
    warnings,
    report,
    marks: _Marks,
    timeout,
    *,
    last_attempt: bool,
) -> SyncRun | None:
    """Plan the sync against memadmin's rows and write it; raise Refusal on any problem.

    ``read`` holds an incremental read; None, the store is read whole, by ranges, here (its
    sessions' problems go into ``warnings``). Return None, having written nothing but the
    watermark, when an incremental or unrecorded sync finds nothing to change.
    """
    store = UpstreamStore.objects.filter(store_uuid=store_key).first()
    mark = history_mark()
    spec = _pack_spec(pack)
    try:
        if read is not None:
            planned = plan_changed(run, read, store, store_key, spec, report, marks.changed)
        else:
            with StoreRanges(run.path, timeout=timeout) as ranges:
                planned = plan_whole(run, ranges, store, store_key, spec, report)
            warnings[:] = planned.read_warnings
    except StoreError as error:
        raise Refusal([str(error)]) from error
    with closing(planned.plan.creates) if planned.streamed else nullcontext():
        return _write(
            run, planned, store, store_key, info, spec, warnings, report, marks, mark, last_attempt
        )


def _write(
    run: RunBook,
    planned: Planned,
    store,
    store_key: str,
    info,
    spec,
    warnings,
    report,
    marks: _Marks,
    mark: int,
    last_attempt: bool,
) -> SyncRun | None:
    """Write a plan made without a problem (else refuse it), all or nothing.

    Rows of the plan someone saved since ``mark`` make it plan again; on the last attempt
    they are left out, as saved (`writing.moved`), and the store's marks are not moved on,
    so that the next sync reads them again.
    """
    project, plan, scope, problems = run.project, planned.plan, planned.scope, planned.problems
    upstream_of_pk = planned.upstream_of_pk
    if problems:
        raise Refusal([problem_text(p) for p in problems], store, problems)
    if (
        store is not None
        and not marks.record_empty
        and not plan_writes(plan)
        and not project
        and not marks.workspaces_moved
        and not Workspace.objects.filter(store=store, pending_since__isnull=False).exists()
    ):
        StoreWatermark.save_marks(
            store, marks.marks, checked_at=run.started, took=run.duration_ms()
        )
        return None
    new_store = store is None
    store = _store_save(store, store_key, run.path, info, run.started)
    pushed = store_push(plan, store=store, path=run.path, now=run.started)
    writer = SyncWriter(
        store=store,
        plan=plan,
        upstream_of_pk=upstream_of_pk,
        actor=run.actor,
        now=run.started,
        progress=report,
    )
    try:
        created = writer.projects(scope.projects, scope.identities(), spec)
        writer.new_rows()
        with transaction.atomic():
            moved = moved_since(mark, [p.pk for p in scope.projects.values()])
            if moved:  # a save to a row the plan leaves alone changes nothing for it
                moved &= plan_touches(plan, writer.pk_of_upstream)
            if moved and not last_attempt:
                raise _Moved
            if moved:
                warnings = warnings + plan_leave_out(plan, pushed, moved, writer.pk_of_upstream)
            writer.memories()
            writer.audit()
            sync_settle(
                plan,
                store=store,
                known=plan.known_bases,
                pk_of_upstream=writer.pk_of_upstream,
                pushed=pushed,
                actor=run.actor,
                now=run.started,
            )
            sessions = writer.sessions(planned.sessions, scope.session_filter(project))
            store.last_synced_at = run.started
            store.save(update_fields=["last_synced_at"])
            # One project's sync says nothing of the others' rows; rows left out are read
            # again from the marks the store had before.
            kept = marks.previous if moved else marks.marks
            if not project and kept is not None:
                StoreWatermark.save_marks(
                    store, kept, checked_at=run.started, took=run.duration_ms()
                )
            warnings = warnings + store_extras_sync(
                path=run.path,
                store=store,
                now=run.started,
                push=not run.pull_only,
                changed=marks.changed,
            )
            warnings = warnings + plan.warnings + pushed.warnings
            return run_record(
                run, store, plan, created, sessions, warnings, pushed=len(pushed.memories)
            )
    except BaseException:
        writer.undo()
        if new_store:
            store.delete()
        raise


def plan_writes(plan: SyncPlan) -> bool:
    """Return True when a plan changes any memory."""
    return bool(plan.creates or plan.updates or plan.gone or plan.pushes or plan.conflicts)


def _pack_spec(pack: str | None) -> PackSpec | None:
    if not pack:
        return None
    try:
        return pack_load(pack)
    except (PackError, PackNotFoundError) as error:
        raise Refusal([f"the pack for new projects cannot be loaded: {error}"]) from error


def _store_save(store, store_key: str, path: Path, info, now: int) -> UpstreamStore:
    if store is None:
        store = UpstreamStore(store_uuid=store_key, first_synced_at=now, last_synced_at=now)
    store.path = str(path.resolve())[:1000]
    store.schema_version = info.schema_version
    store.migrations = info.migrations
    store.save()
    return store
