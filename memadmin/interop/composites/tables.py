"""What a store holds of the composite tables, and dropping them (backup first).

`store_composites_report` says, per store, whether memadmin publishes composites there, which
of the two tables the store has, how a foreign table of those names differs, and whether the
store has a `category_criteria` table (a patched plugin tree may add one): memadmin reports it
and never writes it; the criteria keys of `context_store_meta` stay the one contract.

`composite_tables_drop` is the explicit, confirmed action: publishing off, a backup of the
store (SQLite backup API) into the backup directory, then the two tables dropped in one
checked transaction.
"""

from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb import composites_ddl as ddl
from memadmin.core.contextdb.opening import open_readonly, table_columns
from memadmin.core.contextdb.store_meta import _backup

from ..models import StoreComposite, StoreComposites, UpstreamStore
from ..write_through.criteria_services import default_backup_dir
from ..write_through.store_writes import store_timeout
from .publish import (
    PublishRefused,
    actor_label,
    published,
    refused_error,
    write_transaction,
)

DROP_CONFIRMATION = "drop"
DROP_UNCONFIRMED = f'Type "{DROP_CONFIRMATION}" to confirm dropping the composite tables.'


@dataclass
class CompositesReport:
    """One store's composite tables as memadmin finds them."""

    store: UpstreamStore
    published: bool
    tables: list[str]
    foreign: str = ""
    criteria_table: list[str] | None = None
    unreadable: str = ""


def store_composites_report(upstream: UpstreamStore) -> CompositesReport:
    """Return what the store holds of the composite tables (read-only; never writes it)."""
    report = CompositesReport(store=upstream, published=published(upstream), tables=[])
    try:
        connection = open_readonly(Path(upstream.path), timeout=0.2)
    except StoreError as error:
        report.unreadable = str(error)
        return report
    try:
        report.tables = ddl.tables_present(connection)
        report.foreign = ddl.shape_difference(connection)
        columns = table_columns(connection, "category_criteria")
        report.criteria_table = None if columns is None else list(columns)
    except Exception as error:
        report.unreadable = f"the store cannot be read: {error}"
    finally:
        connection.close()
    return report


@transaction.atomic
def composite_tables_drop(
    *, upstream: UpstreamStore, actor, confirmation: str, backup_dir: Path | None = None
) -> Path:
    """Back the store up, then drop its two composite tables; return the backup's path.

    Refused unless ``confirmation`` is "drop". Publishing is turned off first; memadmin's
    composites stay as they are.
    """
    if confirmation.strip().lower() != DROP_CONFIRMATION:
        raise ValidationError(DROP_UNCONFIRMED, code="drop_unconfirmed")
    try:
        connection = open_readonly(Path(upstream.path), timeout=store_timeout())
        try:
            difference = ddl.shape_difference(connection)
        finally:
            connection.close()
        if difference:
            raise PublishRefused(
                f"{upstream.path}: {difference}; those tables are not memadmin's to drop.",
                code="composites_foreign_shape",
            )
        backup = _backup(
            Path(upstream.path), backup_dir or default_backup_dir(), timeout=store_timeout()
        )
        now = now_ms()
        with write_transaction(upstream, now) as tx:
            ddl.tables_drop(tx.connection)
    except StoreError as error:
        raise refused_error(upstream, error) from error
    StoreComposite.objects.filter(store=upstream).delete()
    StoreComposites.objects.update_or_create(
        store=upstream,
        defaults={
            "published": False,
            "changed_at": now,
            "changed_by": actor_label(actor),
            "backup_path": str(backup),
        },
    )
    audit_record(
        action="composite_tables_dropped",
        target=upstream,
        actor=actor,
        object_type="store",
        changes={"path": upstream.path, "backup": str(backup)},
    )
    return backup
