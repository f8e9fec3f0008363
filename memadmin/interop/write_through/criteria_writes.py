"""Criteria write-through: a saved or cleared override reaches the project's store at once.

Called through the store seam (`store_backend().write_criteria`). With write-through on (see `write_through.store_writes`),
the project's criteria keys and surface hash (`write_through.criteria_services.criteria_entries`, the
`export_criteria` format) are upserted into the store's `context_store_meta` in one checked
transaction; a refusal raises `CriteriaStoreRefused` and memadmin's change rolls back.
On a server that cannot reach the file (``pending``) the project is marked
(`PendingCriteria`) and the next sync where the file is writes its keys (`writing.pushes`).
"""

from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb import writing as store
from memadmin.projects.store import CriteriaStoreRefused

from ..models import PendingCriteria
from .criteria_services import criteria_entries
from .store_writes import OFF, PENDING, project_store, store_mode, store_timeout, store_uuid_of


class CriteriaGateway:
    """Write a synced project's criteria into its store."""

    def written(self, project) -> None:
        """Upsert the project's criteria keys; raise CriteriaStoreRefused when refused."""
        upstream = project_store(project)
        if upstream is None or project.pack_id is None or store_mode() == OFF:
            return
        if store_mode() == PENDING:
            PendingCriteria.objects.get_or_create(project=project, defaults={"since": now_ms()})
            return
        entries = criteria_entries(project)
        try:
            with store.store_transaction(
                upstream.path,
                store_uuid=store_uuid_of(upstream),
                timeout=store_timeout(),
                now=now_ms(),
            ) as tx:
                tx.set_meta(entries)
        except store.StoreBusy as error:
            raise CriteriaStoreRefused(
                "The agent is writing to the store; try again. "
                f"Nothing of {project.name} was saved.",
                code="store_busy",
            ) from error
        except StoreError as error:
            raise CriteriaStoreRefused(
                f"The store of {project.name} ({project.identity}) refused the criteria: "
                f"{error}. Nothing was saved.",
                code="store_refused",
            ) from error


CRITERIA_GATEWAY = CriteriaGateway()
