"""Plan a sync from a magic-context store: which rows are new, changed, unchanged or gone.

The plan is three-way where memadmin keeps a base for a row (the curated values the store
held when memadmin last read or wrote it, as a digest): only the store changed since, the
row is pulled; only memadmin changed (an edit kept while the store was out of reach), it is
pushed; both changed, differently, it is a conflict and neither side is overwritten. A row
without a base is pulled as before. ``pull_only`` pulls every changed row. The base is the
digest of the curated values (`memadmin.core.contextdb.writing.curated_digest`, the same
whichever side the values come from), kept per synced memory (`StoreBase`).

Plain data in, plain data out: the rows read from the store, the rows memadmin holds, and
the category names of each project. Nothing here touches the database, so the whole plan,
and every problem that refuses it, is known before anything is written.

Rows are compared as tuples in `FIELDS` order, with the project as its identity string and
the references (`superseded_by`, `merged_from`) as upstream ids, so a row whose
references point at rows created in the same sync compares correctly before they exist.
"""

from collections import ChainMap, Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from memadmin.core.contextdb import RowProblem, UpstreamMemory
from memadmin.core.contextdb.writing import CURATED_COLUMNS, curated_digest

from .checks import identity_problem, row_problems
from .keys import UniqueKeys
from .values import (
    CATEGORY,
    FIELDS,
    GONE_AT,
    NORMALIZED_HASH,
    PROJECT,
    VALUE_NAMES,
    References,
    Resolvable,
    upstream_values,
)

CHANGED, ADOPTED, BACK = "changed", "adopted", "back"


# The curated values of a values tuple, by store column (CURATED_COLUMNS: one list for both).
_CURATED_AT = {
    name: PROJECT if name == "project_path" else 1 + FIELDS.index(name) for name in CURATED_COLUMNS
}


def values_digest(values: tuple) -> str:
    """Return the curated digest of a values tuple (the same as of the store's row)."""
    return curated_digest({name: values[index] for name, index in _CURATED_AT.items()})


def values_curated(values: tuple) -> dict:
    """Return the curated values of a values tuple by store column."""
    return {name: values[index] for name, index in _CURATED_AT.items()}


@dataclass(frozen=True)
class Divergence:
    """A row memadmin changed since its base: pushed (store unchanged) or a conflict."""

    pk: int
    upstream_id: int | None
    store: tuple | None
    memadmin: tuple


def diverged(plan, row, upstream_id: int, values: tuple, base) -> bool:
    """Return True when memadmin changed the row since its base: record a push or conflict.

    Only the store changed (or no base is kept): False, the row is pulled. Only memadmin
    changed: a push. Both changed to the same curated values: False, pulled. Both changed
    otherwise: a conflict, neither side written.
    """
    if not base or row.values[GONE_AT] is not None:
        return False
    mine = values_digest(row.values)
    if mine == base:
        return False
    theirs = values_digest(values)
    if theirs == mine:
        return False
    divergence = Divergence(row.pk, upstream_id, values, row.values)
    (plan.pushes if theirs == base else plan.conflicts).append(divergence)
    return True


def new_in_memadmin(plan, rows, bases, adopted: set[int]) -> None:
    """Push the memories written in memadmin for the store that it does not hold yet."""
    for row in rows:
        if row.upstream_id is None and bases.get(row.pk) == "" and row.pk not in adopted:
            plan.pushes.append(Divergence(row.pk, None, None, row.values))


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

    # (upstream id, values) of each row new to memadmin; by ranges, a `StreamedCreates`.
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
    # The bases those rows (and the pushed ones) had when planned, by primary key.
    known_bases: dict[int, str] = field(default_factory=dict)
    pull_only: bool = False

    def created_ids(self) -> Sequence[int]:
        """Return the upstream ids of the rows new to memadmin, in order, not their values."""
        ids = getattr(self.creates, "ids", None)  # a plan made by ranges keeps them apart
        return ids if ids is not None else [upstream_id for upstream_id, _ in self.creates]

    @property
    def total_flagged(self) -> int:
        """Return how many memories of the store sit in a category their pack lacks."""
        return sum(sum(counter.values()) for counter in self.flagged.values())


def _key(values: tuple) -> tuple:
    return values[PROJECT], values[CATEGORY], values[NORMALIZED_HASH]


def plan_sync(
    *,
    memories: list[UpstreamMemory],
    store_ids: Collection[int],
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

    All the rows at once; a full sync of a large store plans by ranges (`Planner`).
    """
    planner = Planner(
        store_ids=store_ids,
        in_scope={memory.id for memory in memories},
        kept=existing,
        upstream_of_pk=upstream_of_pk,
        categories=categories,
        bases=bases,
        pull_only=pull_only,
    )
    planner.add(memories, [])
    return planner.finish()


class Planner:
    """Plan a sync a range of store rows at a time, holding per row only what is compact.

    ``kept`` are memadmin's rows no store row in scope links to by id (its own rows, the
    rows gone from the store) and may be passed whole; ``add`` takes one range: the store's
    rows in it and memadmin's rows linked to them. ``finish`` returns the plan, the same
    whichever way the rows were cut into ranges. ``creates`` receives each new row as
    ``(upstream id, values)`` (a list unless given).
    """

    def __init__(
        self,
        *,
        store_ids,
        in_scope,
        kept: list[tuple],
        upstream_of_pk: Mapping[int, int],
        categories: Mapping[str, frozenset[str]],
        bases: Mapping[int, str] | None = None,
        pull_only: bool = False,
    ):
        self.plan = SyncPlan(pull_only=pull_only)
        self.store_ids = store_ids
        self.categories = categories
        self.bases = {} if bases is None else bases
        self.references = References(upstream_of_pk, Resolvable(in_scope, upstream_of_pk))
        self.claims: list[RowProblem] = []
        self.row_problems: list[RowProblem] = []
        self.checked: set[str] = set()
        self.kept = _existing_rows(kept, self.references)
        self.linked_kept = _linked(self.kept, self.claims, {})
        self.free = _unlinked_by_key(self.kept, self.linked_kept, store_ids)
        self.kept_ids = set(self.linked_kept)
        self.kept_wanted: set[int] = set()
        self.keys = UniqueKeys()
        self.owners: dict[tuple, int] = {}

    def add(
        self, memories: list[UpstreamMemory], existing: list[tuple], bases: Mapping | None = None
    ) -> None:
        """Plan one range: the store's rows in it and memadmin's rows linked to them.

        ``bases`` holds the bases of those rows (by primary key) when not given whole.
        """
        plan = self.plan
        bases = ChainMap(bases, self.bases) if bases else self.bases
        rows = _existing_rows(existing, self.references)
        linked = _linked(rows, self.claims, self.linked_kept)
        for memory in memories:
            values = self._wanted(memory)
            self.keys.add(memory.id, _key(values))
            if memory.id in self.kept_ids:
                self.kept_wanted.add(memory.id)
            identity = values[PROJECT]
            counts = plan.counts[identity]
            if memory.category not in self.categories.get(identity, frozenset()):
                plan.flagged[identity][memory.category] += 1
                counts.flagged += 1
            row = linked.get(memory.id) or self.linked_kept.get(memory.id)
            if row is None:
                row = self.free.pop(_key(values), None)
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
                    self._known(row.pk, bases)
                continue
            else:
                kind = BACK if row.values[GONE_AT] is not None else CHANGED
                if not plan.pull_only and diverged(plan, row, memory.id, values, bases.get(row.pk)):
                    self._known(row.pk, bases)
                    continue
            self._known(row.pk, bases)
            plan.updates.append(Update(row.pk, memory.id, row.values, values, kind))
            plan.bases[memory.id] = values_digest(values)
            counts.changed += 1
        # A linked row whose store row is not in scope stays as it is: it keeps its key.
        read = {memory.id for memory in memories}
        for row in rows:
            if row.upstream_id not in read:
                self.owners[_key(row.values)] = row.pk

    def _known(self, pk: int, bases: Mapping) -> None:
        """Keep the base of a row the sync gives a new base, or pushes: it is replaced."""
        if pk in bases:
            self.plan.known_bases[pk] = bases[pk]

    def _wanted(self, memory: UpstreamMemory) -> tuple:
        """Return an upstream row's values; record what memadmin cannot hold as problems."""
        self.row_problems += row_problems(memory)
        identity = memory.project_path
        if identity not in self.checked:
            self.checked.add(identity)
            problem = identity_problem(identity, memory.id)
            if problem is not None:
                self.row_problems.append(problem)
        return upstream_values(memory, self.references.from_upstream(memory, self.plan.warnings))

    def finish(self) -> SyncPlan:
        """Return the plan: pushes of memadmin's new rows, rows gone, and the key clashes."""
        plan, rows = self.plan, self.kept
        if not plan.pull_only:
            new_in_memadmin(plan, rows, self.bases, adopted={u.pk for u in plan.updates})
        for divergence in plan.pushes:
            self._known(divergence.pk, self.bases)
        for divergence in plan.pushes:
            plan.counts[divergence.memadmin[PROJECT]].pushed += 1
        for divergence in plan.conflicts:
            plan.counts[divergence.memadmin[PROJECT]].conflicted += 1
        adopted = {update.pk for update in plan.updates if update.kind == ADOPTED}
        for row in rows:
            if (
                row.upstream_id is not None
                and row.upstream_id not in self.store_ids
                and row.values[GONE_AT] is None
                and row.pk not in adopted
            ):
                plan.gone.append(row)
                plan.counts[row.values[PROJECT]].gone += 1
        touched = {update.pk for update in plan.updates}
        owners = dict(self.owners)
        for row in rows:
            if row.pk in touched or row.upstream_id in self.kept_wanted:
                continue
            owners[_key(row.values)] = row.pk
        plan.problems = self.claims + self.row_problems + self.keys.clashes(owners)
        return plan


def _existing_rows(existing: list[tuple], references: References) -> list[Existing]:
    rows = []
    for pk, upstream_id, *values, superseded_pk, merged_pks in existing:
        rows.append(
            Existing(pk, upstream_id, (*values, *references.from_pks(superseded_pk, merged_pks)))
        )
    return rows


def _linked(rows: list[Existing], problems: list, others: Mapping) -> dict[int, Existing]:
    """Return memadmin's rows by upstream id; two rows claiming one id is a problem."""
    linked: dict[int, Existing] = {}
    for row in rows:
        if row.upstream_id is None:
            continue
        other = linked.get(row.upstream_id) or others.get(row.upstream_id)
        if other is not None:
            problems.append(
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


def _unlinked_by_key(rows: list[Existing], linked: dict[int, Existing], store_ids) -> dict:
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
