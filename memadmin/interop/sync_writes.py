"""Apply a sync plan: projects, memories with one history version each, audit events, sessions.

Runs inside the sync's transaction and `acting` block (`sync_services`). Memories are
written on the bulk paths of `row_writes` (a hundred thousand rows must take seconds), and
each row written gets exactly one history version, in its final state, stamped with the
actor ("import") and a reason, the same rows simple-history's own bulk path writes:

1. rows whose (category, normalized_hash) moves take a placeholder hash first, so rows
   that trade contents never collide on the unique constraint mid-way;
2. new rows get their keys first, so every reference (`superseded_by`, `merged_from`),
   even to a row created with them, is written with the row itself;
3. changed, adopted and returning rows are updated;
4. rows gone from the store get `upstream_gone_at`.

Audit events: one per changed or gone memory, and one summary per project touched.
"""

from collections.abc import Callable, Iterable

from memadmin.audit.actors import Actor
from memadmin.audit.models import AuditEvent
from memadmin.audit.services import audit_record
from memadmin.core.contextdb import UpstreamSession as StoreSession
from memadmin.memories.models import Memory, Project
from memadmin.memories.project_services import project_create
from memadmin.taxonomy.services import pack_install

from .models import UpstreamProject, UpstreamSession, UpstreamStore
from .row_writes import BATCH_SIZE, history_insert, reserve_pks, rows_insert, rows_update
from .sync_plan import (
    ADOPTED,
    BACK,
    FIELDS,
    MERGED,
    PROJECT,
    SUPERSEDED,
    VALUE_NAMES,
    SyncPlan,
    Update,
)

UPDATED_FIELDS = ("project", "upstream_id", *FIELDS, "superseded_by", "merged_from")
SESSION_FIELDS = ("project_identity", "project", "system_prompt_hash", "memory_block_ids")
ACTIONS = {
    "changed": "changed_upstream",
    ADOPTED: "matched_upstream",
    BACK: "back_upstream",
    "gone": "gone_upstream",
}
SUMMARY_ACTION = "context_db_synced"


def project_name(identity: str) -> str:
    """Return a readable name for a project first seen in a store: its identity, shortened."""
    kind, _, rest = identity.partition(":")
    return f"{kind}:{rest[:12]}" if len(rest) > 12 else identity


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
        self.pk_of_upstream = {upstream: pk for pk, upstream in upstream_of_pk.items()}
        self.project_pks: dict[str, int] = {}
        self.projects_by_identity: dict[str, Project] = {}
        self.updated: list[dict] = []
        self.gone: list[dict] = []
        self.reasons = {update.pk: _reason(update) for update in plan.updates}
        self.total = len(plan.creates) + len(plan.updates) + len(plan.gone)
        self.done = 0

    # --- projects

    def projects(self, projects: dict[str, Project], identities: set[str], spec) -> list[str]:
        """Create the projects first seen in the store and bind every project to it."""
        created = []
        for identity in sorted(identities - projects.keys()):
            project = project_create(
                identity=identity, name=project_name(identity), actor=self.actor
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

    def memories(self) -> None:
        """Write every new, changed, adopted, returning and gone memory, with its history."""
        self._step(0)
        moving = [update for update in self.plan.updates if update.key_changes]
        rows_update(
            Memory,
            [{"id": u.pk, "normalized_hash": f"~{u.pk}"} for u in moving],
            ["normalized_hash"],
        )
        pks = reserve_pks(Memory, len(self.plan.creates))
        for pk, (upstream_id, _) in zip(pks, self.plan.creates, strict=True):
            self.pk_of_upstream[upstream_id] = pk
        for update in self.plan.updates:
            self.pk_of_upstream[update.upstream_id] = update.pk
        created = [
            self._row(values, upstream_id, pk)
            for pk, (upstream_id, values) in zip(pks, self.plan.creates, strict=True)
        ]
        # Every reference is known before the insert: rows go in with them, in key order,
        # and the database checks the foreign keys at commit.
        rows_insert(Memory, created, on_batch=self._step)
        self._history(created, "+", "new in the store (context.db sync)")
        self.updated = [self._row(u.new, u.upstream_id, u.pk) for u in self.plan.updates]
        rows_update(Memory, self.updated, UPDATED_FIELDS, on_batch=self._step)
        self._history(self.updated, "~", "")
        self.gone = [self._row(row.values, row.upstream_id, row.pk) for row in self.plan.gone]
        for row in self.gone:
            row["upstream_gone_at"] = self.now
        rows_update(Memory, self.gone, ["upstream_gone_at"], on_batch=self._step)
        self._history(self.gone, "~", "gone from the store (context.db sync)")

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
        AuditEvent.objects.bulk_create(events, batch_size=BATCH_SIZE)
        for identity, counts in sorted(self.plan.counts.items()):
            if counts.new or counts.changed or counts.gone:
                project = self.projects_by_identity[identity]
                audit_record(
                    action=SUMMARY_ACTION,
                    target=project,
                    project=project,
                    changes={**counts.as_dict(), "store": self.store.store_uuid},
                )

    def _event(self, row: dict, action: str, changes: dict, reason: str) -> AuditEvent:
        memory = Memory(**row)
        return AuditEvent(
            actor_label=self.actor.label,
            actor_kind=self.actor.kind,
            actor_user_id=self.actor.user_id,
            action=action,
            project_id=memory.project_id,
            object_type="memory",
            object_id=str(memory.pk),
            object_repr=str(memory)[:200],
            category=memory.category,
            changes=changes,
            reason=reason,
        )

    # --- sessions

    def sessions(self, sessions: Iterable[StoreSession], identities: set[str] | None) -> int:
        """Bring the store's sessions in (only those of ``identities`` when given)."""
        scoped = [
            s
            for s in sessions
            if (identities is None or s.project_path in identities) and len(s.session_id) <= 200
        ]
        rows = UpstreamSession.objects.filter(store=self.store)
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
                        store=self.store, session_id=session.session_id, seen_at=self.now, **values
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
        rows.update(seen_at=self.now)
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
