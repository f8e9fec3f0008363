"""Write-through: every person's write to a synced project's memories reaches its store.

The writer the store seam hands memory writes to (`memadmin.interop.store_backend`,
`ContextDbStore.write_memories`). For a project synced from a store, according to
``settings.MEMADMIN_STORE_WRITES``:

- ``through`` (the default): the change is written to the store in one checked
  transaction (`memadmin.core.contextdb.writing`) before memadmin's rows are saved; a
  refusal raises and nothing is written on either side;
- ``pending`` (a team server that cannot reach the file): the change is kept in memadmin,
  marked pending; the next `sync_context_db` on the machine with the file pushes it;
- ``off``: memadmin never writes to the store (pull-only).

A project not synced from a store is not touched.
"""

import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError, composites_ddl, lifecycle
from memadmin.core.contextdb import writing as store
from memadmin.core.contextdb.errors import StoreLocked
from memadmin.core.contextdb.opening import open_readonly, store_error
from memadmin.core.process_cache import ProcessCache
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.projects.store import (
    NOTHING,
    Receipt,
    StoreBusy,
    StoreChange,
    StoreDuplicate,
    StoreRefused,
    StoreRowChanged,
)
from memadmin.web.store_rehearsal import rehearsing

from ..models import StoreBase, StoreComposites, SyncConflict, UpstreamProject, UpstreamStore
from .newer_stores import newer_note
from .store_values import (
    bases_of,
    bases_record,
    memory_curated,
    memory_digest,
    memory_insert_values,
)

THROUGH, PENDING, OFF = "through", "pending", "off"
PROBE_SECONDS = 2.0


def store_mode() -> str:
    """Return how edits of synced projects reach their store: through, pending or off."""
    mode = getattr(settings, "MEMADMIN_STORE_WRITES", THROUGH)
    if mode not in (THROUGH, PENDING, OFF):
        raise ImproperlyConfigured(
            f"MEMADMIN_STORE_WRITES is {mode!r}; it must be one of: {THROUGH}, {PENDING}, {OFF}"
        )
    return mode


def store_timeout() -> float:
    """Return how long a save waits for the store's write lock, in seconds."""
    return float(getattr(settings, "MEMADMIN_STORE_TIMEOUT", 5.0))


def project_store(project: Project) -> UpstreamStore | None:
    """Return the store a project is synced from, or None."""
    link = UpstreamProject.objects.select_related("store").filter(project=project).first()
    return None if link is None else link.store


def store_uuid_of(upstream: UpstreamStore) -> str | None:
    """Return the store_uuid the file must have (None for a store keyed by its path)."""
    key = upstream.store_uuid
    return None if key.startswith("path:") else key


class ContextDbGateway:
    """The store gateway: see the module."""

    def __init__(self):
        # By project: (when probed, why the store cannot take writes), for PROBE_SECONDS.
        self._probes: ProcessCache[tuple[float, str]] = ProcessCache("store write probes")

    def write(self, *, project: Project, changes: Sequence[StoreChange]) -> Receipt:
        """Write the changes to the project's store, keep them pending, or do nothing."""
        upstream = project_store(project)
        mode = store_mode()
        if upstream is None or mode == OFF:
            return NOTHING
        olds = {
            memory.pk: memory
            for memory in Memory.objects.filter(
                pk__in=[c.memory.pk for c in changes if c.memory.pk]
            )
        }
        if mode == PENDING:
            return self._pending(project, changes, olds)
        self._probes.pop(project.pk)
        conflict = SyncConflict.objects.filter(memory_id__in=olds).first()
        if conflict is not None:
            raise StoreRowChanged(
                f"Memory #{conflict.memory.display_id} has a sync conflict with the store; "
                "resolve it first (both versions are shown on its page).",
                project=project,
                store=conflict.store_values,
            )
        written = _Write(project, upstream, changes, olds)
        try:
            written.run()
        except store.StoreBusy as error:
            raise StoreBusy(
                "The agent is writing to the store; try again. "
                f"Nothing of {project.name} was saved.",
                project=project,
                code="store_busy",
            ) from error
        except store.StoreReadOnly as error:
            raise StoreRefused(
                f"{project.name} ({project.identity}) is read-only: {error}. Nothing was saved.",
                project=project,
                code="store_read_only",
                read_only=True,
            ) from error
        except store.RowChanged as error:
            raise StoreRowChanged(
                f"The agent changed this memory in the store since it was read ({error}). "
                "Both versions are shown; nothing was saved.",
                project=project,
                store=error.current,
            ) from error
        except store.RowDuplicate as error:
            existing = Memory.objects.filter(project=project, upstream_id=error.existing_id).first()
            raise StoreDuplicate(
                f"The store already has this text in the category as ID {error.existing_id}; "
                "merge or archive the duplicate first. Nothing was saved.",
                project=project,
                existing=existing,
                upstream_id=error.existing_id,
            ) from error
        except StoreError as error:
            raise StoreRefused(
                f"The store of {project.name} refused the write: {error}. Nothing was saved.",
                project=project,
                code="store_error",
            ) from error
        return Receipt(changes=changes, settlers=[written.settle])

    def _pending(self, project: Project, changes, olds) -> Receipt:
        for change in changes:
            if change.kind in ("supersede", "delete"):
                raise StoreRefused(
                    f"{project.name} is synced from a store this server cannot reach, and a "
                    "merge or its undo must be written to the store directly: run it where "
                    "the store is. Nothing was saved.",
                    project=project,
                    code="store_pending_merge",
                )
        befores = {
            pk: memory_digest(old, project.identity) if old.upstream_id is not None else ""
            for pk, old in olds.items()
        }

        def settle() -> None:
            digests = {change.memory.pk: befores.get(change.memory.pk, "") for change in changes}
            bases_record(digests, pending=True)

        return Receipt(changes=changes, settlers=[settle])

    def read_only_reason(self, project: Project) -> str:
        """Return why the project's store cannot take writes now ("" when it can)."""
        if store_mode() != THROUGH:
            return ""

        def make(kept) -> tuple[float, str]:
            upstream = project_store(project)
            reason = "" if upstream is None else probe(upstream, project.identity)
            return time.monotonic(), reason

        _, reason = self._probes.get(project.pk, None, make, still=_recent_probe)
        return reason

    def store_revision(self, memory: Memory) -> int | None:
        """Return the store row's ``revision`` now, for a page to carry (None when unknown)."""
        upstream = project_store(memory.project)
        if upstream is None or store_mode() != THROUGH:
            return None
        try:
            connection = open_readonly(Path(upstream.path), timeout=0.2)
        except StoreError:
            return None
        try:
            return store.read_revision(connection, memory.upstream_id)
        except Exception:
            return None
        finally:
            connection.close()

    def store_revisions(self, memories: Sequence[Memory]) -> dict[int, int]:
        """Return the store rows' ``revision`` now by memory id, one read per store."""
        if store_mode() != THROUGH:
            return {}
        by_project: dict[int, list[Memory]] = {}
        for memory in memories:
            by_project.setdefault(memory.project_id, []).append(memory)
        by_store: dict[int, tuple[UpstreamStore, list[Memory]]] = {}
        for members in by_project.values():
            upstream = project_store(members[0].project)
            if upstream is not None:
                by_store.setdefault(upstream.pk, (upstream, []))[1].extend(members)
        found: dict[int, int] = {}
        for upstream, members in by_store.values():
            try:
                connection = open_readonly(Path(upstream.path), timeout=0.2)
            except StoreError:
                continue
            try:
                revisions = store.read_revisions(connection, [m.upstream_id for m in members])
            except Exception:
                continue
            finally:
                connection.close()
            found.update(
                {m.pk: revisions[m.upstream_id] for m in members if m.upstream_id in revisions}
            )
        return found

    def pending(self, memory_ids: Sequence[int]) -> set[int]:
        """Return which of the memories hold changes not yet in their store."""
        return set(
            StoreBase.objects.filter(
                memory_id__in=memory_ids, pending_since__isnull=False
            ).values_list("memory_id", flat=True)
        )


def _recent_probe(probed: tuple[float, str]) -> bool:
    return time.monotonic() - probed[0] < PROBE_SECONDS


def probe(upstream: UpstreamStore, identity: str) -> str:
    """Return why the store cannot take memadmin's writes for the project ("" when it can).

    A store busy for a moment is no reason: the write waits for its lock and checks again.
    """
    path = Path(upstream.path)
    try:
        connection = open_readonly(path, timeout=0.2)
    except StoreLocked:
        # Busy for a moment (a sync reading it, the agent writing): that is not a reason to
        # refuse. The write itself waits for the lock and checks all of this again.
        return ""
    except StoreError as error:
        return (
            f"the store file cannot be opened: {error} (on a server without the file, "
            "set MEMADMIN_STORE_WRITES=pending to keep edits for the next sync)"
        )
    try:
        found = store.read_store_uuid(connection)
        expected = store_uuid_of(upstream)
        if found != expected:
            return (
                f"{path} is now another store (store_uuid {found or 'none'}, expected "
                f"{expected or 'none'}); nothing is written to it"
            )
        too_new = store.too_new_reason(connection)
        newer_note(path, too_new)
        if too_new:
            return f"{path}: {too_new}"
        columns = store.column_facts(connection)
        reason = store.unwritable_reason(columns)
        if reason:
            return f"{path}: {reason}"
        return store.authority_holds(connection, identity)
    except Exception as error:
        locked = isinstance(error, sqlite3.DatabaseError) and isinstance(
            store_error(path, error), StoreLocked
        )
        return "" if locked else f"the store cannot be read: {error}"
    finally:
        connection.close()


class _Write:
    """One write-through: the changes of one service call, in one store transaction."""

    def __init__(self, project: Project, upstream: UpstreamStore, changes, olds):
        self.project = project
        self.upstream = upstream
        self.changes = changes
        self.olds = olds
        self.identity = project.identity
        self.digests: dict[int, str] = {}
        self.retyped: list[Memory] = []
        self.publishes_composites = StoreComposites.objects.filter(
            store=upstream, published=True
        ).exists()

    def run(self) -> None:
        bases = bases_of(self.olds)
        referenced = set()
        for change in self.changes:
            referenced |= {pk for pk in change.memory.merged_from or () if isinstance(pk, int)}
            if change.memory.superseded_by_id is not None:
                referenced.add(change.memory.superseded_by_id)
        upstream_of = dict(
            Memory.objects.filter(
                pk__in=referenced, project=self.project, upstream_id__isnull=False
            ).values_list("pk", "upstream_id")
        )
        with store.store_transaction(
            self.upstream.path,
            store_uuid=store_uuid_of(self.upstream),
            timeout=store_timeout(),
            now=now_ms(),
            rehearse=rehearsing(),
        ) as tx:
            tx.check_project(self.identity)
            new_ids: dict[int, int] = {}
            successors: dict[int, int] = {}
            # New rows first (a memory of the project the store lacks becomes one), so
            # a supersede in the same call can name the row it points at.
            for change in self.changes:
                memory = change.memory
                if change.kind == "create" or (
                    change.kind in ("update", "seen") and memory.upstream_id is None
                ):
                    values = memory_insert_values(memory, self.identity, upstream_of)
                    if tx.decision is not None:
                        # The store writes it as `agent` (`user` is for host-verified user
                        # messages); memadmin's memory says the same.
                        memory.source_type = lifecycle.DASHBOARD_SOURCE_TYPE
                        self.retyped.append(memory)
                    memory.upstream_id = tx.insert(values)
                    new_ids[id(memory)] = memory.upstream_id
            for change in self.changes:
                memory = change.memory
                if id(memory) in new_ids:
                    continue
                old = self.olds[memory.pk]
                base = bases.get(memory.pk)
                expected = (
                    base.digest
                    if base is not None and base.digest
                    else memory_digest(old, self.identity)
                )
                if change.kind == "delete":
                    tx.delete(memory.upstream_id, expected=expected)
                    continue
                if change.kind == "seen":
                    seen = {name: getattr(memory, name) for name in ("seen_count", "last_seen_at")}
                    tx.update(
                        memory.upstream_id,
                        {**seen, "updated_at": old.updated_at},
                        expected=expected,
                    )
                    continue
                sets = _changed_columns(old, memory, self.identity)
                successor = None
                if change.kind == "supersede":
                    successor = _upstream_of_successor(memory, upstream_of, new_ids)
                tx.update(
                    memory.upstream_id,
                    sets,
                    expected=expected,
                    superseded_by=successor,
                    reason=change.reason,
                    expected_revision=change.expected_revision,
                )
                if successor is not None:
                    successors[memory.upstream_id] = successor
            if successors and self.publishes_composites:
                # Compression fate: the store's composite rows follow the merge, in this
                # transaction (memadmin's own rows follow in `composites_repoint`).
                composites_ddl.repoint_members(tx.connection, successors, now_ms())

    def settle(self) -> None:
        """Record the bases: each memory's curated values are the store's now."""
        saved = [memory.pk for memory in self.retyped if memory.pk is not None]
        if saved:
            # A merge saves its result before the store names it; its type follows here.
            Memory.objects.filter(pk__in=saved).update(source_type=lifecycle.DASHBOARD_SOURCE_TYPE)
        digests = {
            change.memory.pk: memory_digest(change.memory, self.identity)
            for change in self.changes
            if change.kind != "delete" and change.memory.pk is not None
        }
        bases_record(digests)


def _changed_columns(old: Memory, new: Memory, identity: str) -> dict:
    """Return the store columns a memory's change writes: its curated changes, and the time."""
    before, after = memory_curated(old, identity), memory_curated(new, identity)
    sets = {name: value for name, value in after.items() if before[name] != value}
    sets.pop("project_path", None)
    if old.superseded_by_id is not None and new.superseded_by_id is None:
        sets["superseded_by_memory_id"] = None
    sets["updated_at"] = new.updated_at
    return sets


def _upstream_of_successor(memory: Memory, upstream_of: dict, new_ids: dict) -> int:
    successor = memory.superseded_by
    if successor is None:
        raise store.RowChanged("a supersede needs its successor", None)
    if id(successor) in new_ids:
        return new_ids[id(successor)]
    if successor.upstream_id is not None:
        return successor.upstream_id
    if successor.pk in upstream_of:
        return upstream_of[successor.pk]
    raise StoreError(f"the successor #{successor.pk} is not in the store")


GATEWAY = ContextDbGateway()
