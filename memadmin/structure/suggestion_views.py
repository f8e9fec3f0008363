"""The structure assistant's page: what to fragment and group in a project, and its effect.

A GET shows every suggestion (members, drafted header, tokens) and the project's coverage at
its budget and at 1,500 and 4,000 tokens, now (pack mode) and with all of them applied
(headers mode). A project of more than `run_services.inline_limit()` live memories has them
worked out by the background worker, asked for with a button (`suggestions_run`): the page
shows its progress, refreshing itself, then its result. A curator applies the chosen ones, or all, with the headers as edited, in one
change whose message carries Undo. A refused apply shows the page again as it is now, with
why, and the headers as the person edited them.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import has_role, role_required
from memadmin.audit.undo_messages import undo_message
from memadmin.core.clock import now_ms
from memadmin.core.structure import HEADER_TOKEN_LIMIT, Effect
from memadmin.ledger.counters import choose_counter
from memadmin.ledger.plugin_context import ledger_budget
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.web.htmx_request import HtmxHttpRequest

from .apply_services import LIVE, SuggestionsChanged, structure_apply
from .models import SuggestionRun
from .run_services import inline_limit, latest_run, project_version, run_queue, suggestions_of
from .suggestion_forms import SuggestionsForm
from .suggestions import SHOWN_BUDGETS, structure_plan


@require_GET
@role_required("viewer")
def suggestions(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Show the project's suggestions, their headers and their effect."""
    project = get_object_or_404(Project, pk=project_pk)
    return _page(request, project, form=None)


@require_POST
@role_required("editor")
def suggestions_run(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Queue a background working-out of a large project's suggestions; back to its page."""
    project = get_object_or_404(Project, pk=project_pk)
    run_queue(project=project, actor=request.user)
    return redirect("structure:suggestions", project_pk=project.pk)


@require_POST
@role_required("curator")
def suggestions_apply(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Apply the chosen suggestions (or all) with their headers as edited, in one change."""
    project = get_object_or_404(Project, pk=project_pk)
    choice = choose_counter()
    # What the page showed: the background run's suggestions, or the project's suggested now;
    # the chosen ones are checked against the memories as they are when applied.
    if _large(project):
        run = latest_run(project)
        shown, pk_of = suggestions_of(run) if run is not None else ([], {})
    else:
        plan = structure_plan(project, counter=choice.counter, budgets=(), now_ms=now_ms())
        shown, pk_of = plan.suggestions, plan.pk_of
    form = SuggestionsForm(request.POST, suggestions=shown)
    try:
        if not form.is_valid():
            raise ValidationError([e for errors in form.errors.values() for e in errors])
        applied = structure_apply(
            project=project,
            keys=form.keys(),
            headers=form.headers(),
            reason=form.cleaned_data["reason"],
            actor=request.user,
            counter=choice.counter,
            shown=shown,
            pk_of=pk_of,
        )
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        # The page as it is now; the headers as the person edited them where still suggested.
        changed = isinstance(error, SuggestionsChanged) or "chosen" in form.errors
        return _page(request, project, form=form, status=409 if changed else 400)
    undo_message(request, applied.summary(), change_id=applied.change_id)
    return redirect("structure:suggestions", project_pk=project.pk)


def _large(project: Project) -> bool:
    live = Memory.objects.filter(project=project, status__in=LIVE).count()
    return live > inline_limit()


def _page(request, project: Project, *, form, status: int = 200) -> HttpResponse:
    choice = choose_counter()
    budget = ledger_budget(project).tokens
    run = None
    large = _large(project)
    if large:
        run = latest_run(project)
        done = run is not None and run.state == SuggestionRun.State.DONE
        suggestions, _ = suggestions_of(run) if done else ([], {})
        effects = [_effect(row) for row in run.result["effects"]] if done else []
        header_limit = run.result["header_limit"] if done else HEADER_TOKEN_LIMIT
    else:
        budgets = sorted({budget, *SHOWN_BUDGETS})
        plan = structure_plan(project, counter=choice.counter, budgets=budgets, now_ms=now_ms())
        suggestions, effects, header_limit = plan.suggestions, plan.effects, plan.header_limit
    if form is None or "chosen" in form.errors:
        form = SuggestionsForm(suggestions=suggestions)
    context = {
        "project": project,
        "suggestions": suggestions,
        "effects": effects,
        "header_limit": header_limit,
        "run": run,
        "large": large,
        "run_outdated": run is not None
        and run.state == SuggestionRun.State.DONE
        and run.version != project_version(project),
        "inline_limit": inline_limit(),
        "form": form,
        # Each suggestion beside its box (the `chosen` field's own checkbox) and its header box.
        "rows": list(
            zip(
                suggestions,
                form["chosen"].subwidgets,
                [form.header_field(s) for s in suggestions],
                strict=True,
            )
        ),
        "budget": budget,
        "counter_notice": choice.notice,
        "can_apply": has_role(request.user, "curator"),
    }
    return render(request, "structure/suggestions.html", context, status=status)


def _effect(row: dict) -> Effect:
    return Effect(
        budget=row["budget"],
        live=row["live"],
        before_injected=row["before"]["injected"],
        before_reached=row["before"]["reached"],
        after_injected=row["after"]["injected"],
        after_reached=row["after"]["reached"],
        before_tokens=row["before"]["tokens"],
        after_tokens=row["after"]["tokens"],
    )
