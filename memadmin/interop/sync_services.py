"""Sync memadmin from a magic-context store: read it read-only, plan, then write all or nothing.

The store is opened read-only (`memadmin.core.contextdb`) and never written. Every row is
checked and the whole plan made before the first write; a single problem refuses the sync
with every problem listed (row, column, problem) and nothing imported. The writes then run
in one transaction with actor "import" (`sync_writes`). Each run, refused ones included,
leaves a SyncRun summary.
"""

import json
import time
from collections.abc import Callable
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import RowProblem, StoreError, inspect_store, read_store
from memadmin.core.contextdb.opening import DEFAULT_TIMEOUT_SECONDS
from memadmin.core.packs import PackError, PackNotFoundError, PackSpec
from memadmin.memories.models import Memory, Project
from memadmin.taxonomy.selectors import category_names
from memadmin.taxonomy.services import pack_load

from .models import SyncRun, UpstreamProject, UpstreamStore
from .sync_plan import FIELDS, SyncPlan, plan_sync
from .sync_writes import SyncWriter
from .workspace_sync import store_extras_sync

DEFAULT_PACK = "magic-context"
PROBLEMS_KEPT = 200
SYNC_LOCK = 0x6D656D61  # the advisory lock key of syncs on PostgreSQL ("mema")

Progress = Callable[[str, int, int], None]


class SyncRefused(ValidationError):
    """The sync was refused and nothing written; `problems` says why, `run` is its record."""

    def __init__(self, messages: list[str], *, run: SyncRun, problems: list[RowProblem] = ()):
        self.run = run
        self.problems = list(problems)
        super().__init__(messages, code="sync_refused")


def problem_text(problem: RowProblem) -> str:
    """Return one problem as a line naming the table, the row and the column."""
    row = "" if problem.row_id is None else f" row {problem.row_id}"
    return f"{problem.table}{row}, column {problem.column}: {problem.problem}"


def _problem_dict(problem: RowProblem) -> dict:
    return {
        "table": problem.table,
        "row": problem.row_id,
        "column": problem.column,
        "problem": problem.problem,
    }


def _silent(phase: str, done: int, total: int) -> None:
    """Report no progress."""


class _Run:
    """The bookkeeping of one sync: when it began, what it was asked, how to refuse it."""

    def __init__(self, *, path: Path, project: str, actor):
        self.path = path
        self.project = project
        self.actor = as_actor(actor)
        self.started = now_ms()
        self.clock = time.perf_counter()

    def duration_ms(self) -> int:
        return int((time.perf_counter() - self.clock) * 1000)

    def refuse(
        self,
        messages: list[str],
        *,
        store: UpstreamStore | None = None,
        problems: list[RowProblem] = (),
        warnings: list[RowProblem] = (),
    ) -> SyncRefused:
        """Record the refused run and return the error to raise."""
        run = SyncRun.objects.create(
            store=store,
            path=str(self.path)[:1000],
            project_filter=self.project[:200],
            outcome=SyncRun.Outcome.REFUSED,
            actor_label=self.actor.label,
            started_at=self.started,
            duration_ms=self.duration_ms(),
            problem_count=max(len(problems), len(messages)),
            problems=[_problem_dict(p) for p in problems[:PROBLEMS_KEPT]]
            or [{"table": "", "row": None, "column": "", "problem": m} for m in messages],
            warnings=[_problem_dict(p) for p in warnings[:PROBLEMS_KEPT]],
        )
        return SyncRefused(messages, run=run, problems=list(problems))


def context_db_sync(
    *,
    path: str | Path,
    actor="import",
    project: str = "",
    pack: str | None = DEFAULT_PACK,
    reason: str = "",
    progress: Progress | None = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> SyncRun:
    """Bring the memories and sessions of a store into memadmin; return the run's summary.

    ``project`` limits the sync to one project identity. A project the store holds and
    memadmin does not is created, with ``pack`` installed (none when ``pack`` is None).
    Raise SyncRefused, having written nothing but the refused run's record, when the file
    is not a readable store or any row cannot be imported as it is. ``timeout`` is how
    long to wait for a store another process holds locked.
    """
    path = Path(path)
    report = progress or _silent
    run = _Run(path=path, project=project, actor=actor)
    report("read", 0, 1)
    try:
        info = inspect_store(path, timeout=timeout)
        read = read_store(path, timeout=timeout)
    except StoreError as error:
        raise run.refuse([str(error)]) from error
    report("read", 1, 1)
    store_key = info.store_uuid or f"path:{path.resolve()}"
    warnings = [p for p in read.problems if p.table != "memories"]
    try:
        with transaction.atomic(), acting(actor=actor, reason=reason or f"sync from {path}"):
            _one_sync_at_a_time()
            return _plan_and_write(run, read, info, store_key, pack, warnings, report)
    except _Refusal as refusal:
        raise run.refuse(
            refusal.messages, store=refusal.store, problems=refusal.problems, warnings=warnings
        ) from None


class _Refusal(Exception):
    """Raised inside the sync's transaction to roll it back; turned into SyncRefused."""

    def __init__(self, messages: list[str], store=None, problems: list[RowProblem] = ()):
        super().__init__(messages)
        self.messages = messages
        self.store = store
        self.problems = list(problems)


def _one_sync_at_a_time() -> None:
    """Serialise syncs, so a plan is never made from rows another sync is changing.

    SQLite's transactions already hold the write lock from their start (`BEGIN IMMEDIATE`);
    PostgreSQL takes a transaction-scoped advisory lock.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SYNC_LOCK])


def _plan_and_write(run: _Run, read, info, store_key: str, pack, warnings, report) -> SyncRun:
    """Plan the sync against memadmin's rows and write it; raise _Refusal on any problem."""
    store = UpstreamStore.objects.filter(store_uuid=store_key).first()
    problems = [p for p in read.problems if p.table == "memories"]
    project = run.project
    memories = [m for m in read.memories if not project or m.project_path == project]
    spec = _pack_spec(pack)
    scope = _Scope.of(store, memories, project)
    messages = scope.conflicts(store_key)
    if project and project not in scope.identities_in_store and not scope.is_bound(project):
        messages.append(f"{run.path}: the store holds no memory of project {project}")
    if messages:
        raise _Refusal(messages, store, problems)
    report("compare", 0, len(memories))
    upstream_of_pk = scope.upstream_of_pk()
    plan = plan_sync(
        memories=memories,
        store_ids=frozenset(m.id for m in read.memories) | read_skipped_ids(read.problems),
        existing=scope.existing_rows(),
        upstream_of_pk=upstream_of_pk,
        categories=scope.categories(spec),
        now=run.started,
    )
    report("compare", len(memories), len(memories))
    problems += plan.problems
    if problems:
        raise _Refusal([problem_text(p) for p in problems], store, problems)
    store = _store_save(store, store_key, run.path, info, run.started)
    writer = SyncWriter(
        store=store,
        plan=plan,
        upstream_of_pk=upstream_of_pk,
        actor=run.actor,
        now=run.started,
        progress=report,
    )
    created = writer.projects(scope.projects, scope.identities(), spec)
    writer.memories()
    writer.audit()
    sessions = writer.sessions(read.sessions, scope.session_filter(project))
    warnings = warnings + store_extras_sync(path=run.path, store=store, now=run.started)
    return _record(run, store, plan, created, sessions, warnings + plan.warnings)


def read_skipped_ids(problems: list[RowProblem]) -> frozenset[int]:
    """Return the ids of rows the reader left out: they exist upstream, so are never gone."""
    return frozenset(
        p.row_id
        for p in problems
        if p.table == "memories" and p.row_skipped and isinstance(p.row_id, int)
    )


def _pack_spec(pack: str | None) -> PackSpec | None:
    if not pack:
        return None
    try:
        return pack_load(pack)
    except (PackError, PackNotFoundError) as error:
        raise _Refusal([f"the pack for new projects cannot be loaded: {error}"]) from error


class _Scope:
    """The projects a sync touches: those of the store's rows in scope and those bound to it."""

    def __init__(self, projects: dict[str, Project], identities_in_store: set[str], store_pks):
        self.projects = projects
        self.identities_in_store = identities_in_store
        self.store_project_pks = store_pks

    @classmethod
    def of(cls, store, memories, project: str) -> "_Scope":
        identities = {m.project_path for m in memories}
        bound = {}
        if store is not None:
            bound = dict(
                UpstreamProject.objects.filter(store=store).values_list(
                    "project__identity", "project_id"
                )
            )
        wanted = identities | ({project} if project else set(bound))
        projects = {
            p.identity: p
            for p in Project.objects.filter(identity__in=wanted).select_related(
                "upstream_link__store"
            )
        }
        return cls(projects, identities, set(bound.values()))

    def is_bound(self, identity: str) -> bool:
        """Return True when the project is already synced from this store."""
        project = self.projects.get(identity)
        return project is not None and project.pk in self.store_project_pks

    def identities(self) -> set[str]:
        """Return every project identity in scope, created or not."""
        return self.identities_in_store | set(self.projects)

    def conflicts(self, store_key: str) -> list[str]:
        """Return a message for each project already bound to another store."""
        messages = []
        for identity, project in sorted(self.projects.items()):
            link = getattr(project, "upstream_link", None)
            if link is not None and link.store.store_uuid != store_key:
                messages.append(
                    f"project {identity} is synced from another store ({link.store.store_uuid} "
                    f"at {link.store.path}); upstream ids of two stores cannot be mixed"
                )
        return messages

    def existing_rows(self) -> list[tuple]:
        """Return memadmin's rows of the projects in scope, as the planner reads them.

        The query is the ORM's own; its rows are decoded here rather than by the ORM's
        per-value converters, which cost more than the query for a large store.
        """
        if not self.projects:
            return []
        rows = (
            Memory.objects.filter(project__in=self.projects.values())
            .order_by()
            .values_list(
                "pk",
                "upstream_id",
                "project__identity",
                *FIELDS,
                "superseded_by_id",
                "merged_from",
            )
        )
        sql, params = rows.query.get_compiler(using=rows.db).as_sql()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [_decoded(row) for row in cursor.fetchall()]

    def upstream_of_pk(self) -> dict[int, int]:
        """Return the upstream id of every synced row of the store's projects, by primary key."""
        project_pks = self.store_project_pks | {p.pk for p in self.projects.values()}
        return dict(
            Memory.objects.filter(project_id__in=project_pks, upstream_id__isnull=False)
            .order_by()
            .values_list("pk", "upstream_id")
        )

    def categories(self, spec: PackSpec | None) -> dict[str, frozenset[str]]:
        """Return each identity's category names: its pack's, or the new pack's when new."""
        names = {identity: frozenset(category_names(p)) for identity, p in self.projects.items()}
        for identity in self.identities_in_store - names.keys():
            names[identity] = frozenset(spec.names()) if spec else frozenset()
        return names

    def session_filter(self, project: str) -> set[str] | None:
        """Return the identities whose sessions are synced, or None for all of them."""
        return {project} if project else None


_SHAREABLE = 3 + FIELDS.index("shareable")
_METADATA = 3 + FIELDS.index("metadata")


def _json(value: object) -> object:
    """Return a JSON column's value decoded (the database may have decoded it already)."""
    if not isinstance(value, str):
        return value
    if value == "[]":
        return []
    if value == "{}":
        return {}
    return json.loads(value)


def _decoded(row: tuple) -> tuple:
    """Return an existing row with its flag as a bool and its JSON columns decoded."""
    values = list(row)
    values[_SHAREABLE] = bool(values[_SHAREABLE])
    values[_METADATA] = _json(values[_METADATA])
    values[-1] = _json(values[-1])
    return tuple(values)


def _store_save(store, store_key: str, path: Path, info, now: int) -> UpstreamStore:
    if store is None:
        store = UpstreamStore(store_uuid=store_key, first_synced_at=now)
    store.path = str(path.resolve())[:1000]
    store.schema_version = info.schema_version
    store.migrations = info.migrations
    store.last_synced_at = now
    store.save()
    return store


def _record(run: _Run, store, plan: SyncPlan, created, sessions: int, warnings) -> SyncRun:
    counts = {identity: c.as_dict() for identity, c in sorted(plan.counts.items())}
    return SyncRun.objects.create(
        store=store,
        path=str(run.path)[:1000],
        project_filter=run.project[:200],
        outcome=SyncRun.Outcome.SYNCED,
        actor_label=run.actor.label,
        started_at=run.started,
        duration_ms=run.duration_ms(),
        new=len(plan.creates),
        changed=len(plan.updates),
        unchanged=plan.unchanged,
        gone=len(plan.gone),
        flagged=plan.total_flagged,
        sessions=sessions,
        projects_created=created,
        by_project=counts,
        flagged_categories={
            identity: dict(sorted(counter.items()))
            for identity, counter in sorted(plan.flagged.items())
        },
        warnings=[_problem_dict(p) for p in warnings[:PROBLEMS_KEPT]],
    )
