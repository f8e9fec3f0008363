"""Criteria write-through: a saved or cleared override reaches the project's store at once.

Registered in `memadmin.taxonomy.store_hooks`. With write-through on (see `store_writes`),
the project's criteria keys and surface hash (`criteria_services.criteria_entries`, the
`export_criteria` format) are upserted into the store's `context_store_meta` in one checked
transaction; a refusal raises `CriteriaStoreRefused` and memadmin's change rolls back.
"""

from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb import writing as store
from memadmin.taxonomy.store_hooks import CriteriaStoreRefused

from .criteria_services import criteria_entries
from .store_writes import THROUGH, project_store, store_mode, store_timeout, store_uuid_of


class CriteriaGateway:
    """Write a synced project's criteria into its store."""

    def written(self, project) -> None:
        """Upsert the project's criteria keys; raise CriteriaStoreRefused when refused."""
        upstream = project_store(project)
        if upstream is None or store_mode() != THROUGH or project.pack_id is None:
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
