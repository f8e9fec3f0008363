"""The structure assistant's page: what to fragment and group in a project, and its effect.

A GET shows every suggestion (members, drafted header, tokens) and the project's coverage at
its budget and at 1,500 and 4,000 tokens, now (pack mode) and with all of them applied
(headers mode). A curator applies the chosen ones, or all, with the headers as edited, in one
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
from memadmin.htmx_request import HtmxHttpRequest
from memadmin.ledger.counters import choose_counter
from memadmin.ledger.plugin_context import ledger_budget
from memadmin.projects.models import Project

from .apply_services import structure_apply
from .suggestion_forms import SuggestionsForm
from .suggestions import structure_plan

SHOWN_BUDGETS = (1500, 4000)


@require_GET
@role_required("viewer")
def suggestions(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Show the project's suggestions, their headers and their effect."""
    project = get_object_or_404(Project, pk=project_pk)
    return _page(request, project, form=None)


@require_POST
@role_required("curator")
def suggestions_apply(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Apply the chosen suggestions (or all) with their headers as edited, in one change."""
    project = get_object_or_404(Project, pk=project_pk)
    choice = choose_counter()
    plan = structure_plan(project, counter=choice.counter, budgets=(), now_ms=now_ms())
    form = SuggestionsForm(request.POST, suggestions=plan.suggestions)
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
        )
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        # The page as it is now; the headers as the person edited them where still suggested.
        return _page(request, project, form=form, status=409 if "chosen" in form.errors else 400)
    undo_message(request, applied.summary(), change_id=applied.change_id)
    return redirect("structure:suggestions", project_pk=project.pk)


def _page(request, project: Project, *, form, status: int = 200) -> HttpResponse:
    choice = choose_counter()
    budget = ledger_budget(project).tokens
    budgets = sorted({budget, *SHOWN_BUDGETS})
    plan = structure_plan(project, counter=choice.counter, budgets=budgets, now_ms=now_ms())
    if form is None or "chosen" in form.errors:
        form = SuggestionsForm(suggestions=plan.suggestions)
    context = {
        "project": project,
        "plan": plan,
        "form": form,
        # Each suggestion beside its box (the `chosen` field's own checkbox) and its header box.
        "rows": list(
            zip(
                plan.suggestions,
                form["chosen"].subwidgets,
                [form.header_field(s) for s in plan.suggestions],
                strict=True,
            )
        ),
        "budget": budget,
        "counter_notice": choice.notice,
        "can_apply": has_role(request.user, "curator"),
    }
    return render(request, "structure/suggestions.html", context, status=status)
