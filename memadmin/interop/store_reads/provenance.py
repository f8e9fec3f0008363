"""A synced memory's provenance, read from its store for the memory's page.

The sessions that observed it, its successor and conflict links (each linked to memadmin's
memory where there is one) and its verification result, read by
`memadmin.core.contextdb.provenance`. A memory the store lacks costs no query.
"""

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb.opening import open_readonly
from memadmin.core.contextdb.provenance import Provenance, read_provenance
from memadmin.memories.models import Memory

from ..write_through.store_writes import project_store


@dataclass
class ShownProvenance:
    """The store's provenance of a memory, its linked ids as memadmin's memories."""

    provenance: Provenance
    memories: dict[int, Memory]
    unreadable: str = ""

    def linked(self, ids: list[int]) -> list[tuple[int, Memory | None]]:
        """Return each store id with memadmin's memory of it (None: not in memadmin)."""
        return [(i, self.memories.get(i)) for i in ids]


def memory_provenance(memory: Memory) -> ShownProvenance | None:
    """Return the memory's provenance from its store; None when it has no store row."""
    if memory.upstream_id is None:
        return None
    upstream = project_store(memory.project)
    if upstream is None:
        return None
    try:
        connection = open_readonly(Path(upstream.path), timeout=0.2)
    except StoreError as error:
        return ShownProvenance(Provenance(), {}, unreadable=str(error))
    try:
        provenance = read_provenance(connection, memory.upstream_id)
    except sqlite3.DatabaseError as error:
        return ShownProvenance(Provenance(), {}, unreadable=str(error))
    finally:
        connection.close()
    ids = {*provenance.replaced, *provenance.replaced_by, *provenance.conflicts}
    memories = (
        {
            found.upstream_id: found
            for found in Memory.objects.filter(project=memory.project, upstream_id__in=ids)
        }
        if ids
        else {}
    )
    return ShownProvenance(provenance, memories)
