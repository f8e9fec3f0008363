"""Resolve a composite conflict: keep memadmin's composite, or the store's row.

Keeping memadmin's side writes it over the store's row in one checked store transaction, as
a composite edit is written through (`composites.publish`), and refuses when the row changed
again since the sync found the conflict: that is a newer write, and the next sync shows it.
Keeping the store's side takes its row as the sync would have: an `import` version of the
composite (or, for a row the store deleted, the composite deleted), checked as the read-back
checks it and refused when the row changed since. Either way the base moves to the side
kept, a `composite_conflict_resolved` audit event names the curator, and nothing is written
on either side when a check refuses.

The form carries the conflict's version (`conflict_version`): a composite changed here since
the page showed it, or a form that sent no version, is refused as stale.
"""

from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.positions import locked
from memadmin.composites.versions import CompositeChanged
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb import composites_ddl as ddl
from memadmin.core.contextdb.opening import open_readonly

from ..models import StoreComposite
from ..write_through.store_writes import THROUGH, store_mode, store_timeout
from .conflicts import conflict_version, open_conflict
from .publish import (
    link_save,
    memadmin_state,
    published,
    refused_error,
    require_composite_tables,
    state_digest,
    store_state,
    write_state,
    write_transaction,
)
from .readback import StoreReader, store_deletion_apply, store_state_apply

KEEP_STORE, KEEP_MEMADMIN = "store", "memadmin"
CHOICES = {KEEP_STORE: "kept the store's composite", KEEP_MEMADMIN: "kept memadmin's composite"}
KEEP_UNKNOWN = f"Choose one of: {', '.join(CHOICES)}."

_MOVED = (
    "The store's composite {row} changed again since the sync found the conflict; sync the "
    "store to see its newest rows. Nothing was saved."
)


@transaction.atomic
def composite_conflict_resolve(
    *, composite: Composite, keep: str, version: str, actor, reason: str = ""
) -> Composite | None:
    """Put one side of the composite's conflict in force on both; return the composite.

    ``keep`` is "memadmin" or "store"; ``version`` is `conflict_version` as the form showed
    it. Return None when the store's side was a deletion and the composite was deleted.
    Refused with nothing written: an unknown choice, no open conflict, a stale or missing
    version, a store row changed since, a store that cannot be written or read, a store's
    row memadmin cannot take (its memories archived or gone, a cycle of headers).
    """
    if keep not in CHOICES:
        raise ValidationError({"keep": KEEP_UNKNOWN})
    composite = locked(composite)
    conflict = open_conflict(composite)
    if conflict is None:
        raise ValidationError(
            f"Composite {composite.pk} has no open conflict with its store (resolved already, "
            "or synced again since). Nothing was saved.",
            code="no_conflict",
        )
    if not version:
        raise CompositeChanged(unseen=True, deleting=False)
    if version != conflict_version(conflict, composite):
        raise CompositeChanged(deleting=False)
    link = (
        StoreComposite.objects.select_for_update().select_related("store").get(composite=composite)
    )
    sides = conflict["sides"]
    with acting(actor=actor, reason=reason or f"composite conflict resolved: {CHOICES[keep]}"):
        audit_record(
            action="composite_conflict_resolved",
            target=composite,
            project=composite.project,
            category=composite.head.category,
            changes={
                "keep": keep,
                "store_id": link.upstream_id,
                "store": sides["store"],
                "memadmin": sides["memadmin"],
            },
        )
        if keep == KEEP_MEMADMIN:
            _memadmin_kept(composite, link, conflict)
            return composite
        return _store_kept(composite, link, conflict)


def _memadmin_kept(composite: Composite, link: StoreComposite, conflict: dict) -> None:
    """Write memadmin's composite over the store's row, checked against the conflict's."""
    upstream = link.store
    if not published(upstream) or store_mode() != THROUGH:
        raise ValidationError(
            f"Composites are not written to {upstream.path} from this server (not published, "
            "or MEMADMIN_STORE_WRITES is not through): memadmin's composite cannot reach the "
            "store. Publish them first, or keep the store's composite. Nothing was saved.",
            code="composites_not_written",
        )
    state = memadmin_state(composite)
    now = now_ms()
    try:
        with write_transaction(upstream, now) as tx:
            require_composite_tables(
                tx.connection, upstream.path, again="sync it again", refusal=ValidationError
            )
            current = store_state(tx.connection, link.upstream_id)
            if _digest(current) != conflict["store_digest"]:
                raise ValidationError(_MOVED.format(row=link.upstream_id), code="store_changed")
            known = None if current is None else link.upstream_id
            upstream_id = write_state(tx.connection, known, state, now)
    except StoreError as error:
        raise refused_error(upstream, error) from error
    link_save(composite, upstream, upstream_id, state_digest(state), now)


def _store_kept(composite: Composite, link: StoreComposite, conflict: dict) -> Composite | None:
    """Take the store's row (or its deletion) into memadmin as an `import` version."""
    row, members = _store_row(link)
    if _digest(None if row is None else _as_state(row, members)) != conflict["store_digest"]:
        raise ValidationError(_MOVED.format(row=link.upstream_id), code="store_changed")
    with acting(actor="import", reason="the store's side of a composite conflict, kept"):
        if row is None:
            store_deletion_apply(composite, link.upstream_id)
            return None
        reader = StoreReader(link.store, [row], members)
        state = reader.state(row)
        if state is not None:
            kept = (
                CompositeMember.objects.filter(composite__project__upstream_link__store=link.store)
                .exclude(composite=composite)
                .values_list("composite__head_id", "member_id")
            )
            reader.refuse_cycles({row["id"]: state}, list(kept))
        if reader.problems:
            problems = "; ".join(problem["problem"] for problem in reader.problems)
            raise ValidationError(
                f"The store's composite {row['id']} cannot be taken: {problems}. Nothing was "
                "saved.",
                code="store_row_refused",
            )
        composite = store_state_apply(composite, state, row)
    link.digest, link.read_at = conflict["store_digest"], now_ms()
    link.save(update_fields=["digest", "read_at"])
    return composite


def _store_row(link: StoreComposite) -> tuple[dict | None, list[dict]]:
    """Return the store's row of the link's composite and its member rows (None: deleted)."""
    try:
        connection = open_readonly(Path(link.store.path), timeout=store_timeout())
        try:
            require_composite_tables(
                connection,
                link.store.path,
                again="sync it again",
                refusal=ValidationError,
                shape=True,
            )
            rows, members = ddl.rows_read(connection)
        finally:
            connection.close()
    except StoreError as error:
        raise ValidationError(
            f"The store {link.store.path} cannot be read: {error}. Nothing was saved.",
            code="store_unreadable",
        ) from error
    row = next((row for row in rows if row["id"] == link.upstream_id), None)
    return row, [member for member in members if member["composite_id"] == link.upstream_id]


def _as_state(row: dict, members: list[dict]) -> dict:
    return {
        "type": row["type"],
        "head": row["head_memory_id"],
        "cursor": row["cursor"],
        "members": [member["member_memory_id"] for member in members],
    }


def _digest(state: dict | None) -> str:
    return "" if state is None else state_digest(state)
