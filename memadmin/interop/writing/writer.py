"""Write a planned sync into memadmin: one walk down its steps (`sync_write`), all or nothing.

Called by `services` inside its `acting` block, outside any transaction, once the plan is
made without a problem: the writer opens its own transactions, each short, so that on
SQLite (one writer at a time) nobody waits long. Memories are written on the bulk paths of
`bulk_rows` (a hundred thousand rows must take seconds), and each row written gets exactly
one history version, in its final state, stamped with the actor ("import") and a reason,
the rows simple-history's bulk path writes. `sync_write` takes these steps, in this order,
calling each of its step modules once (`pushes`, `moved`, `settle`, `workspaces.sync`, `runs`):

1. the store's row is saved and the plan's pushes written to the store (`pushes.store_push`);
2. `projects`: the projects first seen in the store are created and bound (short
   transactions of the project services);
3. `new_rows`: rows new to memadmin get their keys, then go in with their versions in
   chunks of about 100 ms each, each row with its base (`StoreBase`, the store's values
   just read). Nothing refers to them yet and nothing else changes, so they only add; a
   reference to a row of a later chunk is set in the last step. A chunk's rows are indexed
   and sized set-based (`memories.bulk_index`) and its versions copied from them by one
   statement. On SQLite the writer yields the lock between chunks to whoever waits for it,
   and to nobody else, and copies the WAL back every few chunks (`write_gate`);
4. one last transaction, holding everyone else's writes of memories and workspaces until it
   commits (`lock.writers_held`): the saves made since the plan (`moved.moved_leave_out`: plan
   again, or on the last attempt leave those rows out); `memories`: rows whose (category,
   normalized_hash) moves take a placeholder hash first (rows that trade contents never
   collide on the unique constraint), changed, adopted and returning rows are updated, rows
   gone from the store get `upstream_gone_at`; `audit`: one event per changed or gone
   memory and one summary per project touched; the three-way state settled
   (`settle.sync_settle`: the pushed rows saved as the store now holds them, the new bases,
   the conflicts); `sessions`: the store's `session_meta` rows; the watermark; the store's
   workspaces (`workspaces.sync`); the run's record (`runs`). Its size follows what
   changed, not the store;
5. `undo`: when a later step fails, the rows of step 3 and the projects of step 2 are taken
   out again, so a failed sync leaves memadmin as it found it.
"""

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from django.db import connection, transaction
from django.utils import timezone

from memadmin.audit.actors import Actor
from memadmin.audit.context import current_change_id
from memadmin.audit.models import AuditEvent
from memadmin.audit.services import audit_record
from memadmin.core.contextdb import UpstreamSession as StoreSession
from memadmin.core.contextdb.idset import IdMap
from memadmin.core.project_names import short_identity
from memadmin.memories.bulk_index import indexed_in_bulk
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.projects.services import project_create
from memadmin.taxonomy.services import pack_install

from ..models import (
    StoreBase,
    StoreWatermark,
    SyncRun,
    UpstreamProject,
    UpstreamSession,
    UpstreamStore,
    Workspace,
)
from ..planning.plan import ADOPTED, BACK, SyncPlan, Update, values_digest
from ..planning.planned import Planned
from ..planning.values import FIELDS, MERGED, PROJECT, SUPERSEDED, VALUE_NAMES
from ..workspaces.sync import store_extras_sync
from .bulk_rows import (
    BATCH_SIZE,
    history_copy,
    history_insert,
    reserve_pks,
    rows_insert,
    rows_update,
)
from .lock import writers_held
from .moved import moved_leave_out
from .pushes import store_push
from .runs import RunBook, run_record
from .settle import sync_settle
from .write_gate import checkpoints_deferred, let_writers_in

UPDATED_FIELDS = ("project", "upstream_id", *FIELDS, "superseded_by", "merged_from")
ACTIONS = {
    "changed": "changed_upstream",
    ADOPTED: "matched_upstream",
    BACK: "back_upstream",
    "gone": "gone_upstream",
}
SESSION_FIELDS = ("project_identity", "project", "system_prompt_hash", "memory_block_ids")
SUMMARY_ACTION = "context_db_synced"
NEW_REASON = "new in the store (context.db sync)"
# Rows new to memadmin go in by chunks sized to take about this long each: on SQLite each
# holds the one write lock; on PostgreSQL new rows block nobody, and fewer round trips win.
CHUNK_SECONDS = {"sqlite": 0.1, "postgresql": 0.5}
CHUNK_FIRST, CHUNK_MIN, CHUNK_MAX = 500, 50, 10_000
# SQLite has no queue for its write lock: between chunks the sync yields it to the writers
# waiting for it, and only to them (`writing.write_gate`). PostgreSQL locks rows, not the file.


class Marks:
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


def sync_write(
    run: RunBook,
    planned: Planned,
    store,
    store_key: str,
    info,
    spec,
    warnings,
    report,
    marks: Marks,
    mark: int,
    last_attempt: bool,
) -> SyncRun | None:
    """Write a plan made without a problem, all or nothing; return the run's record.

    Return None, having moved nothing but the watermark, when the plan changes nothing.

    Rows of the plan someone saved since ``mark`` make it plan again (`moved.Moved`); on
    the last attempt they are left out, as saved, and the store's marks are not moved on,
    so that the next sync reads them again.
    """
    project, plan, scope = run.project, planned.plan, planned.scope
    upstream_of_pk = planned.upstream_of_pk
    if (
        store is not None
        and not marks.record_empty
        and not _changes_memories(plan)
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
            writers_held()
            left_out = moved_leave_out(
                plan,
                pushed,
                mark=mark,
                project_pks=[p.pk for p in scope.projects.values()],
                pk_of_upstream=writer.pk_of_upstream,
                last_attempt=last_attempt,
            )
            warnings = warnings + left_out
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
            kept = marks.previous if left_out else marks.marks
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


def _changes_memories(plan: SyncPlan) -> bool:
    """Return True when a plan changes any memory."""
    return bool(plan.creates or plan.updates or plan.gone or plan.pushes or plan.conflicts)


def _store_save(store, store_key: str, path: Path, info, now: int) -> UpstreamStore:
    if store is None:
        store = UpstreamStore(store_uuid=store_key, first_synced_at=now, last_synced_at=now)
    store.path = str(path.resolve())[:1000]
    store.schema_version = info.schema_version
    store.migrations = info.migrations
    store.save()
    return store


class SyncWriter:
    """Write one plan for one store; call projects, memories, audit, sessions in that order."""

    def __init__(
        self,
        *,
        store: UpstreamStore,
        plan: SyncPlan,
        upstream_of_pk: dict[int, int],
        actor: Actor,
        now: int,
        progress: Callable[[str, int, int], None],
    ):
        self.store = store
        self.plan = plan
        self.actor = actor
        self.now = now
        self.progress = progress
        # memadmin's rows by upstream id, compactly (two arrays, not a dict of Python ints).
        self.pk_of_upstream = IdMap(upstream_of_pk.values(), upstream_of_pk.keys())
        self.project_pks: dict[str, int] = {}
        self.projects_by_identity: dict[str, Project] = {}
        self.updated: list[dict] = []
        self.gone: list[dict] = []
        self.reasons = {update.pk: _reason(update) for update in plan.updates}
        self.total = len(plan.creates) + len(plan.updates) + len(plan.gone)
        self.done = 0
        self.created_projects: list[Project] = []
        self.inserted: list[int] = []
        self.later_references: list[dict] = []

    # --- projects

    def projects(self, projects: dict[str, Project], identities: set[str], spec) -> list[str]:
        """Create the projects first seen in the store and bind every project to it."""
        created = []
        for identity in sorted(identities - projects.keys()):
            # Named from the store's workspace members once they are read (`workspaces.sync`).
            project = project_create(
                identity=identity,
                name=short_identity(identity),
                name_source=Project.NameSource.IDENTITY,
                actor=self.actor,
            )
            if spec is not None:
                pack_install(
                    project=project,
                    spec=spec,
                    actor=self.actor,
                    reason="installed in a project first seen in a context.db sync",
                )
            projects[identity] = project
            created.append(identity)
            self.created_projects.append(project)
        bound = set(
            UpstreamProject.objects.filter(project__in=projects.values()).values_list(
                "project_id", flat=True
            )
        )
        UpstreamProject.objects.bulk_create(
            UpstreamProject(project=project, store=self.store, linked_at=self.now)
            for project in projects.values()
            if project.pk not in bound
        )
        self.projects_by_identity = projects
        self.project_pks = {identity: project.pk for identity, project in projects.items()}
        return created

    # --- memories

    def new_rows(self) -> None:
        """Insert the rows new to memadmin, with their versions, in short transactions."""
        self._step(0)
        pks = reserve_pks(Memory, len(self.plan.creates))
        self.pk_of_upstream.add(self.plan.created_ids(), pks)
        for update in self.plan.updates:
            self.pk_of_upstream[update.upstream_id] = update.pk
        new = set(pks)
        size, start = CHUNK_FIRST, 0
        seconds = CHUNK_SECONDS.get(connection.vendor, 0.1)
        with checkpoints_deferred() as checkpoint:
            while start < len(pks):
                chunk = [
                    self._row(values, upstream_id, pk)
                    for pk, (upstream_id, values) in zip(
                        pks[start : start + size],
                        self.plan.creates[start : start + size],
                        strict=True,
                    )
                ]
                elapsed = self._chunk(chunk, start, size, new)
                start += len(chunk)
                size = max(CHUNK_MIN, min(CHUNK_MAX, int(len(chunk) * seconds / elapsed)))
                if connection.vendor == "sqlite" and start < len(pks):
                    checkpoint()
                    let_writers_in()

    def _chunk(self, chunk: list[dict], start: int, size: int, new: set[int]) -> float:
        """Write one chunk of new rows in one transaction; return the time it took."""
        bases, pks = self._bases(chunk, start, size), [row["id"] for row in chunk]
        later = len(self.later_references)
        began = time.perf_counter()
        # Recorded before the commit, so an interruption landing just after it (a stopped
        # worker's alarm) still leaves the chunk for `undo` to take out; if the chunk did
        # not commit, its ids are forgotten again (its first row, by its upstream id too,
        # tells: another writer may reuse an id a rolled-back chunk had).
        self.inserted += pks
        try:
            with transaction.atomic():
                with indexed_in_bulk(pks):
                    rows_insert(Memory, [self._without_later(row, chunk, new) for row in chunk])
                history_copy(
                    Memory,
                    pks,
                    actor=self.actor,
                    history_type="+",
                    reason=NEW_REASON,
                    corrections=self.later_references[later:],
                )
                rows_insert(StoreBase, bases)
                self.written(chunk)
        except BaseException:
            first = chunk[0]
            committed = Memory.objects.filter(
                pk=first["id"], upstream_id=first["upstream_id"]
            ).exists()
            if not committed:
                del self.inserted[-len(pks) :]
            raise
        self._step(len(chunk))
        return max(time.perf_counter() - began, 0.001)

    def _bases(self, chunk: list[dict], start: int, size: int) -> list[dict]:
        """Return the bases of a chunk of new rows: the store's values as just read."""
        return [
            {
                "memory_id": row["id"],
                "digest": values_digest(values),
                "read_at": self.now,
                "pending_since": None,
            }
            for row, (_, values) in zip(chunk, self.plan.creates[start : start + size], strict=True)
        ]

    def _without_later(self, row: dict, chunk: list[dict], new: set[int]) -> dict:
        """Return the row to insert: a reference to a new row of a later chunk waits.

        The database checks foreign keys when each chunk commits, so such a reference is
        written by `memories`, in the last transaction; the history version has it already.
        """
        successor = row["superseded_by_id"]
        if successor is None or successor not in new or successor <= chunk[-1]["id"]:
            return row
        self.later_references.append({"id": row["id"], "superseded_by_id": successor})
        return {**row, "superseded_by_id": None}

    def written(self, rows: list[dict]) -> None:
        """Note memory rows just written from the store, inside the transaction writing them.

        The one place a sync's written rows pass through (new rows by chunk, then the
        changed, adopted, returning and gone ones): what must be kept per written row is
        kept from here.
        """

    def memories(self) -> None:
        """Write every changed, adopted, returning and gone memory, with its history.

        Runs inside the caller's last transaction, after `new_rows`.
        """
        moving = [update for update in self.plan.updates if update.key_changes]
        rows_update(
            Memory,
            [{"id": u.pk, "normalized_hash": f"~{u.pk}"} for u in moving],
            ["normalized_hash"],
        )
        rows_update(Memory, self.later_references, ["superseded_by"])
        self.updated = [self._row(u.new, u.upstream_id, u.pk) for u in self.plan.updates]
        rows_update(Memory, self.updated, UPDATED_FIELDS, on_batch=self._step)
        self._history(self.updated, "~", "")
        self.gone = [self._row(row.values, row.upstream_id, row.pk) for row in self.plan.gone]
        for row in self.gone:
            row["upstream_gone_at"] = self.now
        rows_update(Memory, self.gone, ["upstream_gone_at"], on_batch=self._step)
        self._history(self.gone, "~", "gone from the store (context.db sync)")
        self.written(self.updated + self.gone)

    def undo(self) -> None:
        """Take out what `new_rows` and `projects` added, when a later step failed."""
        quote = connection.ops.quote_name
        memories, versions = Memory._meta.db_table, Memory.history.model._meta.db_table
        bases = StoreBase._meta.db_table
        for start in range(0, len(self.inserted), CHUNK_MAX):
            chunk = self.inserted[start : start + CHUNK_MAX]
            marks = ", ".join(["%s"] * len(chunk))
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {quote(memories)} SET superseded_by_id = NULL WHERE id IN ({marks})",
                    chunk,
                )
        for start in range(0, len(self.inserted), CHUNK_MAX):
            chunk = self.inserted[start : start + CHUNK_MAX]
            marks = ", ".join(["%s"] * len(chunk))
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"DELETE FROM {quote(bases)} WHERE memory_id IN ({marks})", chunk)
                cursor.execute(f"DELETE FROM {quote(memories)} WHERE id IN ({marks})", chunk)
                cursor.execute(
                    f"DELETE FROM {quote(versions)} WHERE id IN ({marks}) AND history_type = '+'",
                    chunk,
                )
        self.inserted = []
        for project in self.created_projects:
            if not Memory.objects.filter(project=project).exists():
                project.delete()
        self.created_projects = []

    def _step(self, count: int) -> None:
        self.done += count
        self.progress("write", self.done, self.total)

    def _row(self, values: tuple, upstream_id: int | None, pk: int) -> dict:
        """Return a memory row as a dict of column attributes, references as keys."""
        row = dict(zip(FIELDS, values[1:SUPERSEDED], strict=True))
        row["id"] = pk
        row["project_id"] = self.project_pks[values[PROJECT]]
        row["upstream_id"] = upstream_id
        row["superseded_by_id"] = self._pk(values[SUPERSEDED])
        row["merged_from"] = [self._pk(reference) for reference in values[MERGED]]
        return row

    def _pk(self, reference: object) -> int | None:
        """Return the primary key a reference (an upstream id or a ("pk", pk) marker) names."""
        if reference is None:
            return None
        if isinstance(reference, tuple):
            return reference[1]
        return self.pk_of_upstream[reference]

    def _history(self, rows: list[dict], history_type: str, reason: str) -> None:
        history_insert(
            Memory,
            rows,
            actor=self.actor,
            history_type=history_type,
            reason=reason,
            reasons=self.reasons,
        )

    # --- audit

    def audit(self) -> None:
        """Record one event per changed or gone memory and one summary per project touched."""
        self.event_time = timezone.now()
        events = [
            self._event(row, ACTIONS[update.kind], _changes(update), self.reasons[update.pk])
            for row, update in zip(self.updated, self.plan.updates, strict=True)
        ]
        events += [
            self._event(
                row,
                ACTIONS["gone"],
                {"upstream_gone_at": [None, self.now]},
                "gone from the store (context.db sync)",
            )
            for row in self.gone
        ]
        rows_insert(AuditEvent, events)
        for identity, counts in sorted(self.plan.counts.items()):
            if counts.new or counts.changed or counts.gone:
                project = self.projects_by_identity[identity]
                audit_record(
                    action=SUMMARY_ACTION,
                    target=project,
                    project=project,
                    changes={**counts.as_dict(), "store": self.store.store_uuid},
                )

    def _event(self, row: dict, action: str, changes: dict, reason: str) -> dict:
        """Return one memory's audit event as a row of the events table."""
        memory = Memory(**row)
        return {
            "created_at": self.event_time,
            "actor_label": self.actor.label,
            "actor_kind": self.actor.kind,
            "actor_user_id": self.actor.user_id,
            "action": action,
            "project_id": memory.project_id,
            "object_type": "memory",
            "object_id": str(memory.pk),
            "object_repr": str(memory)[:200],
            "category": memory.category,
            "changes": changes,
            "reason": reason,
            "change_id": current_change_id(),
        }

    # --- sessions

    def sessions(self, sessions: Iterable[StoreSession], identities: set[str] | None) -> int:
        """Bring the store's sessions in (only those of ``identities`` when given)."""
        store, now = self.store, self.now
        scoped = [
            s
            for s in sessions
            if (identities is None or s.project_path in identities) and len(s.session_id) <= 200
        ]
        rows = UpstreamSession.objects.filter(store=store)
        if identities is not None:
            rows = rows.filter(project_identity__in=identities)
        existing = {row.session_id: row for row in rows}
        project_pks = dict(
            Project.objects.filter(
                identity__in={s.project_path for s in scoped if s.project_path}
            ).values_list("identity", "pk")
        )
        new, changed = [], []
        for session in scoped:
            values = {
                "project_identity": session.project_path or "",
                "project_id": project_pks.get(session.project_path),
                "system_prompt_hash": (session.system_prompt_hash or "")[:200],
                "memory_block_ids": list(session.memory_block_ids or ()),
                "updated_at": session.updated_at,
            }
            row = existing.pop(session.session_id, None)
            if row is None:
                new.append(
                    UpstreamSession(
                        store=store, session_id=session.session_id, seen_at=now, **values
                    )
                )
            elif any(getattr(row, name) != value for name, value in values.items()):
                for name, value in values.items():
                    setattr(row, name, value)
                changed.append(row)
        UpstreamSession.objects.bulk_create(new, batch_size=BATCH_SIZE)
        UpstreamSession.objects.bulk_update(
            changed, [*SESSION_FIELDS, "updated_at"], batch_size=500
        )
        UpstreamSession.objects.filter(pk__in=[row.pk for row in existing.values()]).delete()
        rows.update(seen_at=now)
        return len(scoped)


def _reason(update: Update) -> str:
    """Return the change reason recorded on an updated memory's version."""
    if update.kind == ADOPTED:
        return f"matched to row #{update.upstream_id} of the store (same text)"
    if update.kind == BACK:
        return "back in the store (context.db sync)"
    return f"changed in the store: {', '.join(update.changed_fields)} (context.db sync)"


def _changes(update: Update) -> dict:
    """Return {value name: [before, after]} for the values an update changes."""
    names = set(update.changed_fields)
    return {
        name: [_plain(before), _plain(after)]
        for name, before, after in zip(VALUE_NAMES, update.old, update.new, strict=True)
        if name in names
    }


def _plain(value: object) -> object:
    """Return a value as JSON can hold it (references as upstream ids)."""
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value
