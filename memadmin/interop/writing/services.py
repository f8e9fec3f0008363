"""Sync memadmin from a magic-context store: read it read-only, plan, then write all or nothing.

`context_db_sync` walks down the sync once per attempt: the store read (read-only,
`memadmin.core.contextdb`), the plan made (`..planning.planned`), the plan written
(`writer.sync_write`), then the composites read back (`..composites.readback`). Only the
pushes (`pushes`, then the composites', unless pull-only) write to the store, with the base
check. Every row is checked and the whole plan made, outside any write transaction, before
the first write; a single problem refuses the sync with every problem listed (row, column,
problem) and nothing imported. The writer's last transaction first checks that no memory
in scope changed since the plan was made (else the sync undoes its new rows and plans
again, here). Syncs run one at a time (`lock`). Each run, refused and failed ones included,
leaves a SyncRun summary (`runs`).
"""

from collections.abc import Callable
from contextlib import closing, nullcontext
from pathlib import Path

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
from ..planning.planned import Refusal, plan_changed, plan_whole
from ..write_through.store_writes import OFF, store_mode
from .lock import SyncBusy, sync_lock
from .moved import Moved, history_mark
from .page_cache import sync_page_cache
from .runs import RunBook, SyncRefused, problem_text
from .writer import Marks, sync_write

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

    Rows memadmin changed since its base are pushed to the store (`writing.pushes`) or kept
    as conflicts (`writing.settle`), unless ``pull_only`` (or ``MEMADMIN_STORE_WRITES=off``)
    takes the store's rows as they are. While memadmin holds changes not in the store yet,
    an incremental sync reads the store whole, so that they are pushed.
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
                Marks(marks, changed, record_empty, None if known is None else known.marks()),
                timeout,
                last_attempt=attempt == PLAN_ATTEMPTS,
            )
        except Refusal as refusal:
            raise run.refuse(
                refusal.messages, store=refusal.store, problems=refusal.problems, warnings=warnings
            ) from None
        except Moved:
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


def _plan_and_write(
    run: RunBook,
    read,
    info,
    store_key: str,
    pack,
    warnings,
    report,
    marks: Marks,
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
        if planned.problems:
            raise Refusal([problem_text(p) for p in planned.problems], store, planned.problems)
        return sync_write(
            run, planned, store, store_key, info, spec, warnings, report, marks, mark, last_attempt
        )


def _pack_spec(pack: str | None) -> PackSpec | None:
    if not pack:
        return None
    try:
        return pack_load(pack)
    except (PackError, PackNotFoundError) as error:
        raise Refusal([f"the pack for new projects cannot be loaded: {error}"]) from error
