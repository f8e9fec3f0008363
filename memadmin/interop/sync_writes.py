"""Apply a sync plan: projects, memories with one history version each, audit events, sessions.

Runs inside the sync's transaction and `acting` block (`sync_services`). Memories are
written on the bulk paths, and each row written gets exactly one history version in its
final state, stamped with the actor ("import") and a reason:

1. rows whose (category, normalized_hash) moves take a placeholder hash first, so rows
   that trade contents never collide on the unique constraint mid-way;
2. new rows are created, then given their references (which may name rows created with
   them), then their history;
3. changed, adopted and returning rows are updated, then their history;
4. rows gone from the store get `upstream_gone_at`, then their history.

Audit events: one per changed or gone memory, and one summary per project touched.
"""

from collections.abc import Callable, Iterable

from simple_history.utils import get_history_manager_for_model

from memadmin.audit.actors import Actor
from memadmin.audit.models import AuditEvent
from memadmin.audit.services import audit_record
from memadmin.core.contextdb import UpstreamSession as StoreSession
from memadmin.memories.models import Memory, Project
from memadmin.memories.services import project_create
from memadmin.taxonomy.services import pack_install

from .models import UpstreamProject, UpstreamSession, UpstreamStore
from .row_writes import BATCH_SIZE, rows_update
from .sync_plan import (
    ADOPTED,
    BACK,
    FIELDS,
    MERGED,
    PROJECT,
    SUPERSEDED,
    VALUE_NAMES,
    Existing,
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
        self.updated: list[Memory] = []
        self.gone: list[Memory] = []
        self.history = get_history_manager_for_model(Memory)
        self.history_attrs = {"history_actor": actor.label, "history_actor_kind": actor.kind}
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
            [Memory(pk=update.pk, normalized_hash=f"~{update.pk}") for update in moving],
            ["normalized_hash"],
        )
        created = self._create()
        for update in self.plan.updates:
            self.pk_of_upstream[update.upstream_id] = update.pk
        self._reference_created(created)
        self._history(created, update=False, reason="new in the store (context.db sync)")
        self.updated = [self._updated(update) for update in self.plan.updates]
        rows_update(Memory, self.updated, UPDATED_FIELDS, on_batch=self._step)
        self._history(self.updated, update=True, reason="changed in the store")
        self.gone = [self._gone(row) for row in self.plan.gone]
        rows_update(Memory, self.gone, ["upstream_gone_at"], on_batch=self._step)
        self._history(self.gone, update=True, reason="gone from the store (context.db sync)")

    def _step(self, count: int) -> None:
        self.done += count
        self.progress("write", self.done, self.total)

    def _memory(self, values: tuple, upstream_id: int | None, pk: int | None = None) -> Memory:
        memory = Memory(
            pk=pk,
            project_id=self.project_pks[values[PROJECT]],
            upstream_id=upstream_id,
            **dict(zip(FIELDS, values[1:SUPERSEDED], strict=True)),
        )
        return memory

    def _pk(self, reference: object) -> int | None:
        """Return the primary key a reference (an upstream id or a ("pk", pk) marker) names."""
        if reference is None:
            return None
        if isinstance(reference, tuple):
            return reference[1]
        return self.pk_of_upstream[reference]

    def _with_references(self, memory: Memory, values: tuple) -> Memory:
        memory.superseded_by_id = self._pk(values[SUPERSEDED])
        memory.merged_from = [self._pk(reference) for reference in values[MERGED]]
        return memory

    def _create(self) -> list[Memory]:
        created = [self._memory(values, upstream_id) for upstream_id, values in self.plan.creates]
        for start in range(0, len(created), BATCH_SIZE):
            batch = created[start : start + BATCH_SIZE]
            Memory.objects.bulk_create(batch, batch_size=BATCH_SIZE)
            self._step(len(batch))
        for memory in created:
            self.pk_of_upstream[memory.upstream_id] = memory.pk
        return created

    def _reference_created(self, created: list[Memory]) -> None:
        """Point new rows at their successors and merge sources, now that all have keys."""
        referring = []
        for memory, (_, values) in zip(created, self.plan.creates, strict=True):
            if values[SUPERSEDED] is not None or values[MERGED]:
                referring.append(self._with_references(memory, values))
        rows_update(Memory, referring, ["superseded_by", "merged_from"])

    def _updated(self, update: Update) -> Memory:
        memory = self._with_references(
            self._memory(update.new, update.upstream_id, pk=update.pk), update.new
        )
        if update.kind == ADOPTED:
            memory._change_reason = f"matched to row #{update.upstream_id} of the store (same text)"
        elif update.kind == BACK:
            memory._change_reason = "back in the store (context.db sync)"
        else:
            fields = ", ".join(update.changed_fields)
            memory._change_reason = f"changed in the store: {fields} (context.db sync)"
        return memory

    def _gone(self, row: Existing) -> Memory:
        memory = self._with_references(
            self._memory(row.values, row.upstream_id, pk=row.pk), row.values
        )
        memory.upstream_gone_at = self.now
        return memory

    def _history(self, memories: list[Memory], *, update: bool, reason: str) -> None:
        for start in range(0, len(memories), BATCH_SIZE):
            self.history.bulk_history_create(
                memories[start : start + BATCH_SIZE],
                batch_size=BATCH_SIZE,
                update=update,
                default_change_reason=reason,
                custom_historical_attrs=self.history_attrs,
            )

    # --- audit

    def audit(self) -> None:
        """Record one event per changed or gone memory and one summary per project touched."""
        events = [
            self._event(memory, ACTIONS[update.kind], _changes(update))
            for memory, update in zip(self.updated, self.plan.updates, strict=True)
        ]
        events += [
            self._event(memory, ACTIONS["gone"], {"upstream_gone_at": [None, self.now]})
            for memory in self.gone
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

    def _event(self, memory: Memory, action: str, changes: dict) -> AuditEvent:
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
            reason=getattr(memory, "_change_reason", ""),
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
