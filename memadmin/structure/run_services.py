"""The structure assistant on a large project: worked out by the background worker.

Suggesting for a project of more than `INLINE_LIMIT` live memories takes longer than a page
should wait (about 30 s at 100,000). The page queues a `SuggestionRun` (`run_queue`) and the
worker works it out (`run_work`, from `tasks.structure_suggest`), writing its phase and
progress as it goes (short autocommit updates, at most a few a second) and, at the end, the
suggestions and their effect. The page shows the progress, then the result while the
project's memories are as they were (`project_version`); applying from it checks each chosen
suggestion against the memories as they are now (`apply_services.structure_apply`, `shown`).
"""

import time

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max

from memadmin.audit.actors import as_actor
from memadmin.core.clock import now_ms
from memadmin.core.structure import Detail, Suggestion
from memadmin.ledger.counters import choose_counter
from memadmin.ledger.plugin_context import ledger_budget
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .models import SuggestionRun
from .suggestions import SHOWN_BUDGETS, structure_plan

PROGRESS_INTERVAL_SECONDS = 0.5
# A run left queued or running this long (its worker stopped) is closed as failed.
RUN_TIMEOUT_MS = 15 * 60 * 1000
ACTIVE = (SuggestionRun.State.QUEUED, SuggestionRun.State.RUNNING)


def inline_limit() -> int:
    """Return the most live memories a page works out itself (MEMADMIN_STRUCTURE_INLINE_LIMIT)."""
    return getattr(settings, "MEMADMIN_STRUCTURE_INLINE_LIMIT", 5000)


def project_version(project: Project) -> str:
    """Return the version of the project's memories: their count and latest save, in one query."""
    row = Memory.objects.filter(project=project).aggregate(n=Count("pk"), last=Max("updated_at"))
    return f"{row['n']}:{row['last'] or 0}"


def run_queue(*, project: Project, actor) -> SuggestionRun:
    """Queue a working-out of the project's suggestions; one already waiting or running is it."""
    from .tasks import structure_suggest  # the task module imports this one

    with transaction.atomic():
        runs_reap(project)
        active = SuggestionRun.objects.filter(project=project, state__in=ACTIVE).first()
        if active is not None:
            return active
        run = SuggestionRun.objects.create(
            project=project, requested_by=as_actor(actor).label, queued_at=now_ms()
        )
        transaction.on_commit(lambda: structure_suggest.enqueue(run_id=run.pk))
    return run


def latest_run(project: Project) -> SuggestionRun | None:
    """Return the project's newest run (a stopped worker's closed as failed first), or None."""
    runs_reap(project)
    return SuggestionRun.objects.filter(project=project).first()


def runs_reap(project: Project) -> int:
    """Close the project's runs left queued or running past RUN_TIMEOUT_MS; return how many."""
    return SuggestionRun.objects.filter(
        project=project, state__in=ACTIVE, queued_at__lt=now_ms() - RUN_TIMEOUT_MS
    ).update(
        state=SuggestionRun.State.FAILED,
        finished_at=now_ms(),
        error="The background worker did not finish it; work them out again.",
    )


def run_work(*, run_id: int) -> None:
    """Work out a queued run's suggestions, with progress; record a failure as such."""
    run = SuggestionRun.objects.select_related("project").get(pk=run_id)
    if run.state != SuggestionRun.State.QUEUED:
        return
    project = run.project
    version = project_version(project)
    _write(run, state=SuggestionRun.State.RUNNING, started_at=now_ms(), phase="reading")
    last = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        if time.monotonic() - last[0] >= PROGRESS_INTERVAL_SECONDS:
            last[0] = time.monotonic()
            _write(run, phase=phase, done=done, total=total)

    try:
        plan = structure_plan(
            project,
            counter=choose_counter().counter,
            budgets=sorted({ledger_budget(project).tokens, *SHOWN_BUDGETS}),
            now_ms=now_ms(),
            progress=progress,
        )
    except Exception as error:
        _write(run, state=SuggestionRun.State.FAILED, finished_at=now_ms(), error=str(error))
        raise
    _write(
        run,
        state=SuggestionRun.State.DONE,
        finished_at=now_ms(),
        phase="done",
        version=version,
        result=result_of(plan),
    )


def _write(run: SuggestionRun, **fields) -> None:
    for name, value in fields.items():
        setattr(run, name, value)
    SuggestionRun.objects.filter(pk=run.pk).update(**fields)


def result_of(plan) -> dict:
    """Return a plan as the run keeps it: suggestions, effects, and the pks of their memories."""
    named = set()
    for suggestion in plan.suggestions:
        named.update(suggestion.member_ids)
        if suggestion.source_id is not None:
            named.add(suggestion.source_id)
    return {
        "header_limit": plan.header_limit,
        "suggestions": [
            {
                "key": s.key,
                "kind": s.kind,
                "category": s.category,
                "header": s.header,
                "header_tokens": s.header_tokens,
                "source_id": s.source_id,
                "boundaries": list(s.boundaries),
                "tokens_now": s.tokens_now,
                "details": [[d.text, d.memory_id] for d in s.details],
            }
            for s in plan.suggestions
        ],
        "effects": [effect.to_json() for effect in plan.effects],
        "pk_of": {str(shown): plan.pk_of[shown] for shown in named if shown in plan.pk_of},
    }


def suggestions_of(run: SuggestionRun) -> tuple[list[Suggestion], dict[int, int]]:
    """Return a finished run's suggestions and the pk of each memory they name."""
    result = run.result or {}
    suggestions = [
        Suggestion(
            key=row["key"],
            kind=row["kind"],
            category=row["category"],
            header=row["header"],
            header_tokens=row["header_tokens"],
            details=tuple(Detail(text, memory_id) for text, memory_id in row["details"]),
            source_id=row["source_id"],
            boundaries=tuple(row["boundaries"]),
            tokens_now=row.get("tokens_now", 0),
        )
        for row in result.get("suggestions", [])
    ]
    return suggestions, {int(shown): pk for shown, pk in result.get("pk_of", {}).items()}
