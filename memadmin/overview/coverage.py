"""What the overview shows of each project's injection: the ledger at the project's budget.

Counting it needs the project prepared (its rows read, each mode's read made): most of three
seconds at 100,000 memories in a new process, such as the first overview after a restart.
So the overview page counts it only when this process keeps the project prepared as the
store is now (`kept_coverage`); otherwise its section is filled afterwards, by the page's
coverage fragment or, without JavaScript, by a link to the page with it counted
(`project_coverage`).
"""

from dataclasses import dataclass

from memadmin.core.ledger.reader import never_injected_summary as never_injected_sentence
from memadmin.ledger.counters import choose_counter
from memadmin.ledger.selectors import ledger_is_prepared, ledger_preview
from memadmin.projects.models import Project


@dataclass(frozen=True)
class Injection:
    """One ledger mode at the project's budget: tokens used and the share of memories reached."""

    mode: str
    used_tokens: int
    injected: int
    reachable: int
    eligible: int
    share: float  # of every live memory of the project (Coverage.share)
    live: int = 0
    never_injectable: int = 0


@dataclass(frozen=True)
class ProjectCoverage:
    """A project's injection in each mode at its budget, and the counter that counted it."""

    injection: list[Injection]
    counter_name: str = ""
    never_injected: str = ""  # how many live memories the stock plugin never injects, and why


def project_coverage(project: Project, *, now: int) -> ProjectCoverage:
    """Return the project's coverage, counted now (its rows read and prepared when needed)."""
    preview = ledger_preview(
        project, budget=project.injection_budget, counter=choose_counter(), now_ms=now
    )
    never_injected = ""
    if "plugin" in preview.results:
        never_injected = never_injected_sentence(preview.results["plugin"].dropped)
    return ProjectCoverage(
        injection=[
            Injection(
                mode=mode,
                used_tokens=result.used_tokens,
                injected=result.coverage.injected,
                reachable=result.coverage.reachable,
                eligible=result.coverage.eligible,
                share=result.coverage.share,
                live=result.coverage.live_count,
                never_injectable=result.coverage.never_injectable,
            )
            for mode, result in preview.results.items()
        ],
        counter_name=preview.counter.name,
        never_injected=never_injected,
    )


def kept_coverage(project: Project, *, now: int) -> ProjectCoverage | None:
    """Return the project's coverage if this process keeps it prepared as the store is now
    (no row to read: an assembly at most), else None without reading anything more."""
    if not ledger_is_prepared(project, now_ms=now):
        return None
    return project_coverage(project, now=now)
