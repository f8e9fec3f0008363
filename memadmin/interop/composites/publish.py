"""Publish composites to a store: the opt-in, and the write-through of every composite write.

A curator turns publishing on per store (`composites_publish`): memadmin creates the two
tables of `memadmin.core.contextdb.composites_ddl` in the store (refused, creating nothing,
when a table of those names has another shape) and writes every composite of the store's
projects there, in one store transaction. From then on every composite write of a synced
project reaches the store in the same step (`CompositeGateway`, called through the store seam:
`memadmin.projects.store.store_backend().write_composite`): create, delete, a member
added, removed or moved, a type change, the cursor, a merge's repointing. Titles stay in
memadmin: the store has no column for them. Writes follow the memories' protocol: one checked
``BEGIN IMMEDIATE`` transaction, the store's row compared with the base memadmin last read,
a refusal raising so that memadmin writes nothing either.

Turning publishing off (`composites_unpublish`) stops the writes and leaves the tables;
dropping them is `composite_tables_drop` (`composite_unpublish`), after a backup.
"""

import hashlib
import json
import sqlite3
from pathlib import Path

from django.db import transaction

from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb import composites_ddl as ddl
from memadmin.core.contextdb import writing as store
from memadmin.core.contextdb.opening import open_readonly
from memadmin.memories.models import Memory
from memadmin.projects.store import StoreRefused

from ..models import StoreComposite, StoreComposites, UpstreamStore
from ..write_through.store_writes import (
    OFF,
    THROUGH,
    project_store,
    store_mode,
    store_timeout,
    store_uuid_of,
)

# A merge's repointing (and its undo), which the merge's store transaction may have done.
REPOINTING = frozenset({"composite_repointed"})


class PublishRefused(StoreRefused):
    """Publishing (or a composite's write) was refused; nothing was written on either side."""

    def __init__(self, message: str, *, code: str = "composites_refused"):
        super().__init__(message, project=None, code=code)


def require_composite_tables(
    connection: sqlite3.Connection, path, *, again: str, refusal=PublishRefused, shape=False
) -> None:
    """Raise `refusal` ("composites_tables_gone") when the store lacks the composite tables,
    or (with `shape`) holds them in another shape than the proposal's; `again` says what to
    do ("publish again", "sync it again")."""
    if set(ddl.tables_present(connection)) != set(ddl.TABLES) or (
        shape and ddl.shape_difference(connection)
    ):
        raise refusal(
            f"{path} no longer has the composite tables; {again}. Nothing was saved.",
            code="composites_tables_gone",
        )


def state_digest(state: dict) -> str:
    """Return the digest of a composite's state in the store (type, head, cursor, members)."""
    shown = [state["type"], state["head"], state["cursor"], list(state["members"])]
    return hashlib.sha256(json.dumps(shown).encode()).hexdigest()


def memadmin_state(composite: Composite) -> dict:
    """Return the composite's state in store terms (upstream ids); refuse unsynced memories."""
    rows = list(
        CompositeMember.objects.filter(composite=composite)
        .order_by("position")
        .values_list("member_id", flat=True)
    )
    upstream = dict(
        Memory.objects.filter(pk__in=[composite.head_id, *rows]).values_list("pk", "upstream_id")
    )
    missing = [pk for pk in [composite.head_id, *rows] if upstream.get(pk) is None]
    if missing:
        raise PublishRefused(
            f"Memory {missing[0]} of composite {composite.pk} is not in the store yet, so the "
            "composite cannot be published; sync the store first. Nothing was saved.",
            code="composite_unsynced_member",
        )
    return {
        "type": composite.type,
        "head": upstream[composite.head_id],
        "cursor": composite.cursor,
        "members": [upstream[pk] for pk in rows],
        "created_at": composite.made_at,
    }


def store_state(connection: sqlite3.Connection, upstream_id: int) -> dict | None:
    """Return the store's composite ``upstream_id`` as a state, or None when it is gone."""
    row = connection.execute(
        "SELECT type, head_memory_id, cursor FROM composites WHERE id = ?", (upstream_id,)
    ).fetchone()
    if row is None:
        return None
    members = [
        member
        for (member,) in connection.execute(
            "SELECT member_memory_id FROM composite_members WHERE composite_id = ? "
            "ORDER BY position, member_memory_id",
            (upstream_id,),
        )
    ]
    return {"type": row[0], "head": row[1], "cursor": row[2], "members": members}


def write_state(connection: sqlite3.Connection, upstream_id: int | None, state, now: int) -> int:
    """Write the state as the store's composite ``upstream_id`` (a new row when None)."""
    if upstream_id is None:
        cursor = connection.execute(
            "INSERT INTO composites (type, head_memory_id, cursor, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (state["type"], state["head"], state["cursor"], state["created_at"], now),
        )
        upstream_id = cursor.lastrowid
    else:
        connection.execute(
            "UPDATE composites SET type = ?, head_memory_id = ?, cursor = ?, updated_at = ? "
            "WHERE id = ?",
            (state["type"], state["head"], state["cursor"], now, upstream_id),
        )
        connection.execute("DELETE FROM composite_members WHERE composite_id = ?", (upstream_id,))
    connection.executemany(
        "INSERT INTO composite_members (composite_id, member_memory_id, position) VALUES (?, ?, ?)",
        [(upstream_id, member, index) for index, member in enumerate(state["members"])],
    )
    return upstream_id


def refused_error(upstream: UpstreamStore, error: StoreError) -> PublishRefused:
    if isinstance(error, store.StoreBusy):
        return PublishRefused(
            f"The agent is writing to the store {upstream.path}; try again. Nothing was saved.",
            code="store_busy",
        )
    return PublishRefused(
        f"The store {upstream.path} refused the composite write: {error}. Nothing was saved.",
        code="store_error",
    )


def write_transaction(upstream: UpstreamStore, now: int):
    return store.store_transaction(
        upstream.path, store_uuid=store_uuid_of(upstream), timeout=store_timeout(), now=now
    )


def published(upstream: UpstreamStore | None) -> bool:
    """Return True when memadmin writes composites to the store."""
    return (
        upstream is not None
        and StoreComposites.objects.filter(store=upstream, published=True).exists()
    )


def foreign_shape(path: str | Path) -> str:
    """Return how the store's composite tables differ from the proposal's ("" when they do not)."""
    connection = open_readonly(Path(path), timeout=store_timeout())
    try:
        return ddl.shape_difference(connection)
    finally:
        connection.close()


def link_save(composite: Composite, upstream: UpstreamStore, upstream_id: int, digest, now):
    StoreComposite.objects.update_or_create(
        composite=composite,
        defaults={"store": upstream, "upstream_id": upstream_id, "digest": digest, "read_at": now},
    )


def base_conflict(connection: sqlite3.Connection, composite: Composite, state: dict) -> dict:
    """Return the conflict when the store's row of a linked composite moved from memadmin's base.

    A row changed (or deleted) in the store since memadmin last read it is a newer write: it is
    not overwritten. The next sync reads it back (or, changed in memadmin too, reports it).
    Return {} when the row is still the base (or already equal to memadmin's state).
    """
    link = StoreComposite.objects.get(composite=composite)
    current = store_state(connection, link.upstream_id)
    if current is not None and state_digest(current) in {link.digest, state_digest(state)}:
        return {}
    side = "deleted" if current is None else "changed"
    return {
        "table": "composites",
        "row": link.upstream_id,
        "column": "",
        "problem": f"{side} in the store since memadmin read it (composite {composite.pk}); "
        "not overwritten: sync the store to read it back",
    }


@transaction.atomic
def composites_publish(*, upstream: UpstreamStore, actor) -> tuple[list[str], list[dict]]:
    """Turn publishing on for the store: create the tables, write every composite.

    Return (the tables created, the conflicts): a linked composite whose store row changed or
    went since memadmin's base is left as it is on both sides and reported (`base_conflict`).

    Refused with PublishRefused (the store and memadmin unchanged) when a table of those names
    has another shape, or a composite cannot be written (a memory not in the store yet).
    """
    try:
        difference = foreign_shape(upstream.path)
    except StoreError as error:
        raise refused_error(upstream, error) from error
    if difference:
        raise PublishRefused(
            f"{upstream.path}: {difference}. Nothing was created; composites are not published.",
            code="composites_foreign_shape",
        )
    composites = list(
        Composite.objects.filter(project__upstream_link__store=upstream).order_by("pk")
    )
    states = {composite.pk: memadmin_state(composite) for composite in composites}
    links = dict(
        StoreComposite.objects.filter(store=upstream).values_list("composite_id", "upstream_id")
    )
    now = now_ms()
    written: dict[int, int] = {}
    conflicts: list[dict] = []
    try:
        with write_transaction(upstream, now) as tx:
            created = ddl.tables_create(tx.connection, Composite.Type.values)
            for composite in composites:
                known = links.get(composite.pk)
                if known is not None and "composites" not in created:
                    conflict = base_conflict(tx.connection, composite, states[composite.pk])
                    if conflict:
                        conflicts.append(conflict)
                        continue
                if known is not None and store_state(tx.connection, known) is None:
                    known = None  # the tables were (re)created: no row to keep
                written[composite.pk] = write_state(tx.connection, known, states[composite.pk], now)
    except ddl.ForeignShape as error:
        raise PublishRefused(
            f"{upstream.path}: {error}.", code="composites_foreign_shape"
        ) from error
    except StoreError as error:
        raise refused_error(upstream, error) from error
    for composite in composites:
        if composite.pk in written:
            link_save(
                composite, upstream, written[composite.pk], state_digest(states[composite.pk]), now
            )
    StoreComposites.objects.update_or_create(
        store=upstream,
        defaults={"published": True, "changed_at": now, "changed_by": actor_label(actor)},
    )
    audit_record(
        action="composites_published",
        target=upstream,
        actor=actor,
        object_type="store",
        changes={
            "created": created,
            "composites": len(written),
            "conflicts": conflicts,
            "path": upstream.path,
        },
    )
    return created, conflicts


@transaction.atomic
def composites_unpublish(*, upstream: UpstreamStore, actor) -> None:
    """Stop writing composites to the store; its tables and rows stay as they are."""
    StoreComposites.objects.update_or_create(
        store=upstream,
        defaults={"published": False, "changed_at": now_ms(), "changed_by": actor_label(actor)},
    )
    audit_record(
        action="composites_unpublished",
        target=upstream,
        actor=actor,
        object_type="store",
        changes={"path": upstream.path},
    )


def actor_label(actor) -> str:
    return getattr(actor, "get_username", lambda: str(actor))()


class CompositeGateway:
    """The composite store gateway: see the module."""

    def write(self, *, composite: Composite, action: str) -> None:
        """Write the composite's state (or its deletion) to its store, when published."""
        upstream = project_store(composite.project)
        if not published(upstream) or store_mode() == OFF:
            return
        link = StoreComposite.objects.filter(composite_id=composite.pk).first()
        deleting = action == "composite_deleted"
        if store_mode() != THROUGH:
            if deleting and link is not None:
                raise PublishRefused(
                    f"{upstream.path} publishes composites, and this server cannot reach it "
                    "(MEMADMIN_STORE_WRITES=pending): delete the composite where the store "
                    "is. Nothing was deleted.",
                    code="store_pending_composite",
                )
            return  # kept in memadmin; the next sync with the file pushes it
        state = None if deleting else memadmin_state(composite)
        now = now_ms()
        try:
            with write_transaction(upstream, now) as tx:
                require_composite_tables(
                    tx.connection, upstream.path, again="publish again (Import/export page)"
                )
                upstream_id = None if link is None else link.upstream_id
                written = False
                if link is not None:
                    current = store_state(tx.connection, link.upstream_id)
                    if (
                        current is not None
                        and state is not None
                        and action in REPOINTING
                        and state_digest(current) == state_digest(state)
                    ):
                        # The merge's own store transaction repointed these rows already.
                        written = True
                    elif current is None or state_digest(current) != link.digest:
                        raise PublishRefused(
                            f"The store's composite {link.upstream_id} changed since memadmin "
                            "read it; sync the store, then edit again. Nothing was saved.",
                            code="store_composite_changed",
                        )
                if deleting:
                    if upstream_id is not None:
                        tx.connection.execute(
                            "DELETE FROM composite_members WHERE composite_id = ?", (upstream_id,)
                        )
                        tx.connection.execute("DELETE FROM composites WHERE id = ?", (upstream_id,))
                    return
                if not written:
                    upstream_id = write_state(tx.connection, upstream_id, state, now)
        except StoreError as error:
            raise refused_error(upstream, error) from error
        link_save(composite, upstream, upstream_id, state_digest(state), now)


GATEWAY = CompositeGateway()
