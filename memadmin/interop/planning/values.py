"""The values tuple a sync compares rows by: its layout, made from a store row, its references.

A values tuple holds the project identity first, then `FIELDS` (the Memory fields a sync
mirrors) in order, then the references (`superseded_by`, `merged_from`) as upstream ids,
so that a row compares correctly before the rows it names exist in memadmin; a memadmin
row naming a row the store does not hold keeps it apart as ``("pk", pk)``.
"""

from collections.abc import Iterable, Mapping

from memadmin.core.contextdb import RowProblem, UpstreamMemory
from memadmin.core.contextdb.idset import IdSet
from memadmin.core.contextdb.rules import MEMORY_RULES

# The store columns a sync does not copy into a Memory field as they are: the row's identity
# and project (kept as upstream_id and the project), its references (resolved to memories
# after), and upstream's mural cues.
NOT_MIRRORED = frozenset(
    {
        "id",
        "project_path",
        "superseded_by_memory_id",
        "merged_from",
        "mural_cue",
        "mural_cue_hash",
        "mural_cue_at",
        "mural_cue_rejection_count",
    }
)
# The Memory fields a sync mirrors from upstream, in tuple order (references come after):
# the store's memory columns in the order the column rules read them (their Memory
# attribute: metadata_json fills metadata), then when memadmin saw the row leave the store.
FIELDS = (
    *(rule.attribute for rule in MEMORY_RULES if rule.name not in NOT_MIRRORED),
    "upstream_gone_at",
)
# Positions inside a values tuple: the project identity first, then FIELDS, then references.
PROJECT = 0
CATEGORY = 1
NORMALIZED_HASH = 3
GONE_AT = 1 + FIELDS.index("upstream_gone_at")
SUPERSEDED = 1 + len(FIELDS)
MERGED = SUPERSEDED + 1
VALUE_NAMES = ("project", *FIELDS, "superseded_by", "merged_from")


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
