"""The Sessions page: what each session of a project was given, beside today's preview."""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.core.clock import now_ms
from memadmin.projects.models import Project
from memadmin.web.htmx_request import HtmxHttpRequest

from .counters import choose_counter
from .plugin_context import ledger_budget
from .selectors import ledger_preview
from .session_seen import sessions_seen
from .session_selectors import project_sessions


@require_GET
@role_required("viewer")
def sessions(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """List the project's sessions: harness, prompt surface, recorded ids today, block diff,
    and what each really saw (applied revisions where the store records them) against
    today's selection.

    Today's block is plugin mode at the default budget (the user's, for a synced project).
    """
    project = get_object_or_404(Project, pk=project_pk)
    budget = ledger_budget(project)
    counter = choose_counter(None, fall_back=True)
    preview = ledger_preview(
        project, budget=budget.tokens, counter=counter, now_ms=now_ms(), modes=("plugin",)
    )
    result = preview.results.get("plugin") if preview.results else None
    today = result.rendered if result else ""
    views = project_sessions(project, today_block=today)
    return render(
        request,
        "ledger/sessions.html",
        {
            "project": project,
            "budget": budget,
            "counter": counter,
            "today": today,
            "sessions": views,
            "seen": sessions_seen(project, [view.session for view in views], result),
        },
    )
