"""The values a sync takes from a store row, and its references between the two sides' keys.

A values tuple names the rows it refers to (`superseded_by`, `merged_from`) by upstream id,
so that a row compares correctly before the rows it names exist in memadmin; a memadmin row
naming a row the store does not hold keeps it apart as ``("pk", pk)``.
"""

from collections.abc import Iterable, Mapping

from memadmin.core.contextdb import RowProblem, UpstreamMemory
from memadmin.core.contextdb.idset import IdSet


def upstream_values(memory: UpstreamMemory, references: tuple) -> tuple:
    """Return the values a memory takes from an upstream row, in VALUE_NAMES order.

    Columns upstream leaves NULL where memadmin keeps a value read as upstream's DEFAULT.
    """
    return (
        memory.project_path,
        memory.category,
        memory.content,
        memory.normalized_hash,
        memory.importance,
        memory.scope,
        bool(memory.shareable),
        memory.source_session_id or "",
        memory.source_type or "historian",
        1 if memory.seen_count is None else memory.seen_count,
        0 if memory.retrieval_count is None else memory.retrieval_count,
        memory.first_seen_at,
        memory.created_at,
        memory.updated_at,
        memory.last_seen_at,
        memory.last_retrieved_at,
        memory.status,
        memory.expires_at,
        memory.verification_status or "unverified",
        memory.verified_at,
        memory.classified_at,
        memory.metadata if memory.metadata is not None else {},
        None,
        *references,
    )


class References:
    """Translate references between upstream ids and memadmin primary keys."""

    def __init__(self, upstream_of_pk: Mapping[int, int], resolvable: set[int]):
        self.upstream_of_pk = upstream_of_pk
        self.resolvable = resolvable

    def from_upstream(self, memory: UpstreamMemory, warnings: list[RowProblem]) -> tuple:
        """Return (superseded upstream id, merged upstream ids) keeping only rows that exist."""
        successor = memory.superseded_by_memory_id
        if successor is not None and successor not in self.resolvable:
            warnings.append(
                RowProblem(
                    "memories",
                    memory.id,
                    "superseded_by_memory_id",
                    f"names row {successor}, which is not in the store; left empty",
                )
            )
            successor = None
        merged = []
        for source in memory.merged_from or ():
            if source in self.resolvable:
                merged.append(source)
            else:
                warnings.append(
                    RowProblem(
                        "memories",
                        memory.id,
                        "merged_from",
                        f"names row {source}, which is not in the store; left out",
                    )
                )
        return successor, tuple(merged)

    def from_pks(self, superseded_pk: int | None, merged_pks: Iterable) -> tuple:
        """Return a memadmin row's references in upstream ids; a local row stays apart."""
        successor = None if superseded_pk is None else self._upstream(superseded_pk)
        return successor, tuple(self._upstream(pk) for pk in merged_pks or ())

    def _upstream(self, pk: object) -> object:
        upstream = self.upstream_of_pk.get(pk) if isinstance(pk, int) else None
        return upstream if upstream is not None else ("pk", pk)


class Resolvable:
    """The upstream ids a reference may name: rows in scope and rows memadmin links to."""

    def __init__(self, in_scope, upstream_of_pk: Mapping[int, int]):
        self.in_scope = in_scope
        # Every linked id (those in scope too: the test is the same), compactly.
        self.others = IdSet(upstream_of_pk.values())

    def __contains__(self, upstream_id: object) -> bool:
        return upstream_id in self.in_scope or upstream_id in self.others
