"""Apply a sync plan: projects, memories with one history version each, audit events, sessions.

Called by `writing.services` inside its `acting` block, outside any transaction: the writer
opens its own, each short, so that on SQLite (one writer at a time) nobody waits long.
Memories are written on the bulk paths of `writing.bulk_rows` (a hundred thousand rows must take
seconds), and each row written gets exactly one history version, in its final state,
stamped with the actor ("import") and a reason, the rows simple-history's bulk path writes:

1. `projects`: the projects first seen in the store are created and bound (short
   transactions of the project services);
2. `new_rows`: rows new to memadmin get their keys, then go in with their versions in
   chunks of about 100 ms each, each row with its base (`StoreBase`, the store's values
   just read). Nothing refers to them yet and nothing else changes, so they only add; a
   reference to a row of a later chunk is set in the last step. A chunk's rows are indexed
   and sized set-based (`memories.bulk_index`) and its versions copied from them by one
   statement. On SQLite the writer yields the lock between chunks to whoever waits for it,
   and to nobody else, and copies the WAL back every few chunks (`writing.write_gate`);
3. `memories`, `audit`, `sessions`, in one transaction the caller opens: rows whose
   (category, normalized_hash) moves take a placeholder hash first (rows that trade contents
   never collide on the unique constraint), changed, adopted and returning rows are updated,
   rows gone from the store get `upstream_gone_at`; one audit event per changed or gone
   memory and one summary per project touched. Its size follows what changed, not the store;
4. `undo`: when a later step fails, the rows of step 2 and the projects of step 1 are taken
   out again, so a failed sync leaves memadmin as it found it.
"""

import time
from collections.abc import Callable, Iterable

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

from ..models import StoreBase, UpstreamProject, UpstreamStore
from ..planning.plan import (
    ADOPTED,
    BACK,
    FIELDS,
    MERGED,
    PROJECT,
    SUPERSEDED,
    VALUE_NAMES,
    SyncPlan,
    Update,
    values_digest,
)
from .bulk_rows import history_copy, history_insert, reserve_pks, rows_insert, rows_update
from .sessions import sessions_write
from .write_gate import checkpoints_deferred, let_writers_in

UPDATED_FIELDS = ("project", "upstream_id", *FIELDS, "superseded_by", "merged_from")
ACTIONS = {
    "changed": "changed_upstream",
    ADOPTED: "matched_upstream",
    BACK: "back_upstream",
    "gone": "gone_upstream",
}
SUMMARY_ACTION = "context_db_synced"
NEW_REASON = "new in the store (context.db sync)"
# Rows new to memadmin go in by chunks sized to take about this long each: on SQLite each
# holds the one write lock; on PostgreSQL new rows block nobody, and fewer round trips win.
CHUNK_SECONDS = {"sqlite": 0.1, "postgresql": 0.5}
CHUNK_FIRST, CHUNK_MIN, CHUNK_MAX = 500, 50, 10_000
# SQLite has no queue for its write lock: between chunks the sync yields it to the writers
# waiting for it, and only to them (`writing.write_gate`). PostgreSQL locks rows, not the file.


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
        return sessions_write(self.store, self.now, sessions, identities)


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
