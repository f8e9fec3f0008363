"""Plan a sync from a store: the rows read, the scope checked, the plan made (`planning.plan`).

Two ways in: a full sync reads the store by ranges of ids (`plan_whole`, `planning.ranges`),
never holding it whole; an incremental one plans the rows read past the store's watermarks
(`plan_changed`) against memadmin's matching rows. Either returns a `Planned`, or raises
`Refusal` when the sync cannot go ahead; nothing here writes.
"""

from dataclasses import dataclass, field

from memadmin.core.contextdb import RowProblem, UpstreamSession
from memadmin.core.contextdb.ranges import StoreRanges

from .plan import SyncPlan, plan_sync
from .ranges import StagedCreates, plan_by_ranges
from .scope import Scope
from .values import FIELDS

# Where `upstream_gone_at` sits in a row of Scope.existing_rows.
GONE_AT_COLUMN = 3 + FIELDS.index("upstream_gone_at")


class Refusal(Exception):
    """Raised while planning to stop the sync; turned into SyncRefused."""

    def __init__(self, messages: list[str], store=None, problems: list[RowProblem] = ()):
        super().__init__(messages)
        self.messages = messages
        self.store = store
        self.problems = list(problems)


@dataclass
class Planned:
    """A plan and what its writing needs: the problems, scope and sessions read."""

    plan: SyncPlan
    problems: list[RowProblem]
    scope: Scope
    upstream_of_pk: dict[int, int]
    sessions: list[UpstreamSession]
    read_warnings: list[RowProblem] = field(default_factory=list)

    @property
    def streamed(self) -> bool:
        """Return True when the plan's new rows are staged in a file (closed after writing)."""
        return isinstance(self.plan.creates, StagedCreates)


def read_skipped_ids(problems: list[RowProblem]) -> frozenset[int]:
    """Return the ids of rows the reader left out: they exist upstream, so are never gone."""
    return frozenset(
        p.row_id
        for p in problems
        if p.table == "memories" and p.row_skipped and isinstance(p.row_id, int)
    )


def _scope_checked(run, store, store_key: str, identities: set[str], problems) -> Scope:
    """Return the sync's scope; raise Refusal when a project is bound elsewhere or absent."""
    project = run.project
    scope = Scope.of_identities(store, identities, project)
    messages = scope.conflicts(store_key)
    if project and project not in scope.identities_in_store and not scope.is_bound(project):
        messages.append(f"{run.path}: the store holds no memory of project {project}")
    if messages:
        raise Refusal(messages, store, problems() if callable(problems) else problems)
    return scope


def plan_whole(run, ranges: StoreRanges, store, store_key: str, spec, report) -> Planned:
    """Plan a full sync, reading the store and memadmin's rows a range of ids at a time."""
    project = run.project
    identities = ranges.projects()
    if project:
        identities &= {project}
    scope = _scope_checked(
        run,
        store,
        store_key,
        identities,
        lambda: [p for *_, found in ranges.ranges() for p in found],
    )
    report("compare", 0, len(ranges.ids))
    upstream_of_pk = scope.upstream_of_pk()
    plan, problems = plan_by_ranges(
        ranges,
        scope,
        project=project,
        upstream_of_pk=upstream_of_pk,
        categories=scope.categories(spec),
        pull_only=run.pull_only,
        report=report,
    )
    try:
        sessions, session_problems = ranges.sessions()
    except BaseException:
        plan.creates.close()
        raise
    return Planned(
        plan, problems + plan.problems, scope, upstream_of_pk, sessions, session_problems
    )


def plan_changed(run, read, store, store_key: str, spec, report, changed_read) -> Planned:
    """Plan an incremental sync from the rows read past the store's watermarks."""
    problems = [p for p in read.problems if p.table == "memories"]
    project = run.project
    memories = [m for m in read.memories if not project or m.project_path == project]
    scope = _scope_checked(run, store, store_key, {m.project_path for m in memories}, problems)
    report("compare", 0, len(memories))
    upstream_of_pk = scope.upstream_of_pk()
    changed = {m.id for m in memories}
    if changed_read.ids is not None:
        store_ids = changed_read.ids
        # Rows changed upstream, and rows memadmin links to that the store no longer has.
        existing = scope.existing_rows(
            frozenset(changed.union(store_ids.missing(upstream_of_pk.values())))
        )
    else:
        # Nothing was deleted upstream: every row memadmin links to, not gone, is there.
        existing = scope.existing_rows(frozenset(changed))
        gone = {row[1] for row in existing if row[GONE_AT_COLUMN] is not None}
        store_ids = frozenset((set(upstream_of_pk.values()) - gone) | changed)
    bases = scope.bases_of(existing)
    plan = plan_sync(
        memories=memories,
        store_ids=store_ids | read_skipped_ids(read.problems),
        existing=existing,
        upstream_of_pk=upstream_of_pk,
        categories=scope.categories(spec),
        now=run.started,
        bases=bases,
        pull_only=run.pull_only,
    )
    report("compare", len(memories), len(memories))
    plan.unchanged = max(0, len(store_ids) - len(plan.creates) - len(plan.updates))
    return Planned(plan, problems + plan.problems, scope, upstream_of_pk, read.sessions, [])
