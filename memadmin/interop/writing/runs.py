"""The record of a sync run: its bookkeeping, its refusal, its summary (`SyncRun`).

Every run leaves one SyncRun, refused and failed ones included: `RunBook` keeps when the run
began and what it was asked, and writes the record whichever way the run ends.
"""

import time
from pathlib import Path

from django.core.exceptions import ValidationError

from memadmin.audit.actors import as_actor
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import RowProblem

from ..models import SyncRun, UpstreamStore
from ..planning.plan import SyncPlan

PROBLEMS_KEPT = 200


class SyncRefused(ValidationError):
    """The sync was refused and nothing written; `problems` says why, `run` is its record."""

    def __init__(self, messages: list[str], *, run: SyncRun, problems: list[RowProblem] = ()):
        self.run = run
        self.problems = list(problems)
        super().__init__(messages, code="sync_refused")


def problem_text(problem: RowProblem) -> str:
    """Return one problem as a line naming the table, the row and the column."""
    return problem.text


def problem_dict(problem: RowProblem) -> dict:
    return {
        "table": problem.table,
        "row": problem.row_id,
        "column": problem.column,
        "problem": problem.problem,
    }


class RunBook:
    """The bookkeeping of one sync: when it began, what it was asked, how to refuse it."""

    def __init__(self, *, path: Path, project: str, actor):
        self.path = path
        self.project = project
        self.actor = as_actor(actor)
        self.started = now_ms()
        self.clock = time.perf_counter()

    def duration_ms(self) -> int:
        return int((time.perf_counter() - self.clock) * 1000)

    def refuse(
        self,
        messages: list[str],
        *,
        store: UpstreamStore | None = None,
        problems: list[RowProblem] = (),
        warnings: list[RowProblem] = (),
    ) -> SyncRefused:
        """Record the refused run and return the error to raise."""
        run = SyncRun.objects.create(
            store=store,
            path=str(self.path)[:1000],
            project_filter=self.project[:200],
            outcome=SyncRun.Outcome.REFUSED,
            actor_label=self.actor.label,
            started_at=self.started,
            duration_ms=self.duration_ms(),
            problem_count=max(len(problems), len(messages)),
            problems=[problem_dict(p) for p in problems[:PROBLEMS_KEPT]]
            or [{"table": "", "row": None, "column": "", "problem": m} for m in messages],
            warnings=[problem_dict(p) for p in warnings[:PROBLEMS_KEPT]],
        )
        return SyncRefused(messages, run=run, problems=list(problems))

    def fail(self, reason: str, *, store: UpstreamStore | None = None) -> SyncRun:
        """Record a run that stopped on an error, having changed nothing; return its record."""
        return SyncRun.objects.create(
            store=store,
            path=str(self.path)[:1000],
            project_filter=self.project[:200],
            outcome=SyncRun.Outcome.FAILED,
            actor_label=self.actor.label,
            started_at=self.started,
            duration_ms=self.duration_ms(),
            problem_count=1,
            problems=[{"table": "", "row": None, "column": "", "problem": reason[:2000]}],
        )


def run_record(
    run: RunBook, store, plan: SyncPlan, created, sessions: int, warnings, pushed: int = 0
) -> SyncRun:
    counts = {identity: c.as_dict() for identity, c in sorted(plan.counts.items())}
    return SyncRun.objects.create(
        store=store,
        path=str(run.path)[:1000],
        project_filter=run.project[:200],
        outcome=SyncRun.Outcome.SYNCED,
        actor_label=run.actor.label,
        started_at=run.started,
        duration_ms=run.duration_ms(),
        new=len(plan.creates),
        changed=len(plan.updates),
        unchanged=plan.unchanged,
        gone=len(plan.gone),
        flagged=plan.total_flagged,
        pushed=pushed,
        conflicted=len(plan.conflicts),
        sessions=sessions,
        projects_created=created,
        by_project=counts,
        flagged_categories={
            identity: dict(sorted(counter.items()))
            for identity, counter in sorted(plan.flagged.items())
        },
        warnings=[problem_dict(p) for p in warnings[:PROBLEMS_KEPT]],
    )
