"""Plan a sync from a magic-context store: which rows are new, changed, unchanged or gone.

The plan is three-way where memadmin keeps a base for a row (the curated values the store
held when memadmin last read or wrote it, as a digest): only the store changed since, the
row is pulled; only memadmin changed (an edit kept while the store was out of reach), it is
pushed; both changed, differently, it is a conflict and neither side is overwritten. A row
without a base is pulled as before. ``pull_only`` pulls every changed row.

Plain data in, plain data out: the rows read from the store, the rows memadmin holds, and
the category names of each project. Nothing here touches the database, so the whole plan,
and every problem that refuses it, is known before anything is written.

Rows are compared as tuples in `FIELDS` order, with the project as its identity string and
the references (`superseded_by`, `merged_from`) as upstream ids, so a row whose
references point at rows created in the same sync compares correctly before they exist.
"""

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from memadmin.core.contextdb import RowProblem, UpstreamMemory

from .sync_checks import identity_problem, row_problems
from .sync_threeway import (  # noqa: F401  (values_curated too is imported from here)
    Divergence,
    diverged,
    new_in_memadmin,
    values_curated,
    values_digest,
)
from .sync_values import (  # noqa: F401  (FIELDS and the positions are imported from here)
    CATEGORY,
    FIELDS,
    GONE_AT,
    MERGED,
    NORMALIZED_HASH,
    PROJECT,
    SUPERSEDED,
    VALUE_NAMES,
)

CHANGED, ADOPTED, BACK = "changed", "adopted", "back"


@dataclass(frozen=True)
class Existing:
    """A memory memadmin holds: its primary key, upstream id and values tuple."""

    pk: int
    upstream_id: int | None
    values: tuple


@dataclass(frozen=True)
class Update:
    """A memory whose values become upstream's; `kind` says why (changed, adopted, back)."""

    pk: int
    upstream_id: int
    old: tuple
    new: tuple
    kind: str

    @property
    def changed_fields(self) -> tuple[str, ...]:
        """Return the names of the values that differ, in VALUE_NAMES order."""
        return tuple(
            name
            for name, before, after in zip(VALUE_NAMES, self.old, self.new, strict=True)
            if before != after
        )

    @property
    def key_changes(self) -> bool:
        """Return True when the row's (project, category, normalized_hash) changes."""
        return _key(self.old) != _key(self.new)


@dataclass
class ProjectCounts:
    """What one project's part of a sync does."""

    new: int = 0
    changed: int = 0
    unchanged: int = 0
    gone: int = 0
    flagged: int = 0
    pushed: int = 0
    conflicted: int = 0

    def as_dict(self) -> dict[str, int]:
        """Return the counts as a plain dict."""
        return {
            "new": self.new,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "gone": self.gone,
            "flagged": self.flagged,
            "pushed": self.pushed,
            "conflicted": self.conflicted,
        }


@dataclass
class SyncPlan:
    """Everything a sync will write, and the problems that forbid writing anything."""

    creates: list[tuple[int, tuple]] = field(default_factory=list)
    updates: list[Update] = field(default_factory=list)
    gone: list[Existing] = field(default_factory=list)
    unchanged: int = 0
    counts: dict[str, ProjectCounts] = field(default_factory=lambda: defaultdict(ProjectCounts))
    flagged: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    problems: list[RowProblem] = field(default_factory=list)
    warnings: list[RowProblem] = field(default_factory=list)
    # Three-way: what memadmin pushes, what conflicts, and the bases the sync leaves.
    pushes: list[Divergence] = field(default_factory=list)
    conflicts: list[Divergence] = field(default_factory=list)
    bases: dict[int, str] = field(default_factory=dict)  # upstream id -> digest now
    pull_only: bool = False

    @property
    def total_flagged(self) -> int:
        """Return how many memories of the store sit in a category their pack lacks."""
        return sum(sum(counter.values()) for counter in self.flagged.values())


def _key(values: tuple) -> tuple:
    return values[PROJECT], values[CATEGORY], values[NORMALIZED_HASH]


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


class _References:
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


def plan_sync(
    *,
    memories: list[UpstreamMemory],
    store_ids: frozenset[int],
    existing: list[tuple],
    upstream_of_pk: Mapping[int, int],
    categories: Mapping[str, frozenset[str]],
    now: int,
    bases: Mapping[int, str] | None = None,
    pull_only: bool = False,
) -> SyncPlan:
    """Return the plan that makes memadmin's rows match the store's rows in scope.

    ``memories`` are the store's rows in scope; ``store_ids`` every id in the store.
    ``existing`` holds memadmin's rows of the projects in scope as
    ``(pk, upstream_id, project identity, *FIELDS, superseded_by_id, merged_from)``;
    ``upstream_of_pk`` maps every primary key of the store's projects to its upstream id;
    ``categories`` gives each project identity its pack's category names.
    ``bases`` maps memadmin's primary keys to their base digest ("" for a memory written in
    memadmin and not in the store yet, which is pushed as a new row).
    """
    bases = {} if bases is None else bases
    plan = SyncPlan(pull_only=pull_only)
    in_scope = {memory.id for memory in memories}
    references = _References(upstream_of_pk, in_scope | set(upstream_of_pk.values()))
    rows = _existing_rows(existing, references)
    linked = _linked(rows, plan)
    wanted = _wanted_values(memories, references, plan)
    free = _unlinked_by_key(rows, linked, store_ids)
    for memory in memories:
        values = wanted[memory.id]
        identity = values[PROJECT]
        counts = plan.counts[identity]
        if memory.category not in categories.get(identity, frozenset()):
            plan.flagged[identity][memory.category] += 1
            counts.flagged += 1
        row = linked.get(memory.id)
        if row is None:
            row = free.pop(_key(values), None)
            if row is None:
                plan.creates.append((memory.id, values))
                counts.new += 1
                continue
            kind = ADOPTED
        elif row.values == values:
            plan.unchanged += 1
            counts.unchanged += 1
            if bases.get(row.pk) != values_digest(values):
                plan.bases[memory.id] = values_digest(values)
            continue
        else:
            kind = BACK if row.values[GONE_AT] is not None else CHANGED
            if not pull_only and diverged(plan, row, memory.id, values, bases.get(row.pk)):
                continue
        plan.updates.append(Update(row.pk, memory.id, row.values, values, kind))
        plan.bases[memory.id] = values_digest(values)
        counts.changed += 1
    if not pull_only:
        new_in_memadmin(plan, rows, bases, adopted={u.pk for u in plan.updates})
    for divergence in plan.pushes:
        plan.counts[divergence.memadmin[PROJECT]].pushed += 1
    for divergence in plan.conflicts:
        plan.counts[divergence.memadmin[PROJECT]].conflicted += 1
    adopted = {update.pk for update in plan.updates if update.kind == ADOPTED}
    for row in rows:
        if (
            row.upstream_id is not None
            and row.upstream_id not in store_ids
            and row.values[GONE_AT] is None
            and row.pk not in adopted
        ):
            plan.gone.append(row)
            plan.counts[row.values[PROJECT]].gone += 1
    _check_unique(plan, rows, memories, wanted)
    return plan


def _existing_rows(existing: list[tuple], references: _References) -> list[Existing]:
    rows = []
    for pk, upstream_id, *values, superseded_pk, merged_pks in existing:
        rows.append(
            Existing(pk, upstream_id, (*values, *references.from_pks(superseded_pk, merged_pks)))
        )
    return rows


def _linked(rows: list[Existing], plan: SyncPlan) -> dict[int, Existing]:
    """Return memadmin's rows by upstream id; two rows claiming one id is a problem."""
    linked: dict[int, Existing] = {}
    for row in rows:
        if row.upstream_id is None:
            continue
        other = linked.get(row.upstream_id)
        if other is not None:
            plan.problems.append(
                RowProblem(
                    "memories",
                    row.upstream_id,
                    "id",
                    f"is claimed by two memadmin memories (#{other.pk} and #{row.pk}) "
                    "in different projects; delete one of them",
                )
            )
            continue
        linked[row.upstream_id] = row
    return linked


def _wanted_values(
    memories: list[UpstreamMemory], references: _References, plan: SyncPlan
) -> dict[int, tuple]:
    """Return each upstream row's values; record rows memadmin cannot hold as problems."""
    wanted = {}
    checked: set[str] = set()
    for memory in memories:
        plan.problems += row_problems(memory)
        identity = memory.project_path
        if identity not in checked:
            checked.add(identity)
            problem = identity_problem(identity, memory.id)
            if problem is not None:
                plan.problems.append(problem)
        wanted[memory.id] = upstream_values(memory, references.from_upstream(memory, plan.warnings))
    return wanted


def _unlinked_by_key(
    rows: list[Existing], linked: dict[int, Existing], store_ids: frozenset
) -> dict[tuple, Existing]:
    """Return the rows an incoming upstream row may adopt, by (project, category, hash).

    Those are memadmin's own rows (no upstream id) and rows whose upstream row is gone.
    """
    free = {}
    for row in rows:
        if row.upstream_id is None or (
            row.upstream_id not in store_ids and linked.get(row.upstream_id) is row
        ):
            free[_key(row.values)] = row
    return free


def _check_unique(
    plan: SyncPlan, rows: list[Existing], memories: list[UpstreamMemory], wanted: dict
) -> None:
    """Record a problem wherever two rows would share (project, category, normalized_hash)."""
    touched = {update.pk for update in plan.updates}
    owners: dict[tuple, tuple[str, int]] = {}
    for row in rows:
        if row.pk in touched or (row.upstream_id is not None and row.upstream_id in wanted):
            continue
        owners[_key(row.values)] = ("memadmin", row.pk)
    for memory in memories:
        key = _key(wanted[memory.id])
        owner = owners.get(key)
        if owner is None:
            owners[key] = ("upstream", memory.id)
            continue
        kind, number = owner
        if kind == "upstream":
            text = f"has the same category and normalized_hash as row {number}"
        else:
            text = (
                f"is identical to memadmin memory #{number} in {memory.category}, which is "
                "not this row's memory; edit or delete one of the two, then sync again"
            )
        plan.problems.append(RowProblem("memories", memory.id, "normalized_hash", text))
