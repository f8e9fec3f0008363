"""Pages of the injection ledger: pick a project, preview its injection, download the block."""

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.core.clock import now_ms
from memadmin.core.diagrams import budget_bar_svg
from memadmin.core.ledger import LedgerResult, explain
from memadmin.core.userconfig import UserBudget
from memadmin.projects.models import Project
from memadmin.web.addresses import address
from memadmin.web.htmx_request import HtmxHttpRequest, wants_fragment
from memadmin.web.pagination import pager, query_pages

from .counters import choose_counter
from .fidelity_views import fidelity_context
from .forms import MODES_SHOWN, LedgerForm, modes_to_assemble
from .plugin_context import ledger_budget
from .selectors import LedgerPreview, ledger_preview, ledger_projects

ROWS_PER_PAGE = 50
EXCERPT_CHARS = 90
BUDGET_CONTROLS = ("range", "number")  # in page order, as a form sends them


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """List the projects, each linking to its ledger."""
    return render(request, "ledger/index.html", {"projects": ledger_projects()})


@require_GET
@role_required("viewer")
def fragment_moved(request: HtmxHttpRequest, memory_pk: int) -> HttpResponse:
    """Send an old link to the fragment tool, now under Structure, to its new address."""
    target = address(reverse("structure:fragment", args=[memory_pk]), request.GET)
    return redirect(target, permanent=True)


def _project(project_pk: int) -> Project:
    return get_object_or_404(Project, pk=project_pk)


def _form(request: HtmxHttpRequest, project: Project, budget: UserBudget) -> LedgerForm:
    # claude unless asked otherwise: where it is not set up, the page says it uses the heuristic
    return LedgerForm(request.GET, budget=budget.tokens, counter="claude")


def _preview(form: LedgerForm, project: Project) -> LedgerPreview:
    values = form.cleaned_data
    return ledger_preview(
        project,
        budget=values["budget"],
        counter=choose_counter(values["counter"]),
        now_ms=now_ms(),
        tie_break=values["tie_break"],
        modes=modes_to_assemble(values["mode"]),
    )


def _shown_rows(result: LedgerResult, decision: str, reason: str) -> list:
    rows = result.rows
    if decision:
        injected = decision == "in"
        rows = [row for row in rows if row.injected is injected]
    if reason:
        rows = [row for row in rows if row.reason == reason]
    return rows


@require_GET
@role_required("viewer")
def ledger(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Show a project's injection at a budget: bar, coverage of both modes, rows, block.

    An htmx request (the budget moving, a filter changing) gets only the preview, plus the
    budget control that did not move, set to the new value.
    """
    project = _project(project_pk)
    budget = ledger_budget(project)
    form = _form(request, project, budget)
    context = {
        "project": project,
        "form": form,
        "page_url": request.path,
        "default_budget": budget,
        "membership": project.workspace_memberships.select_related("workspace").first(),
    }
    valid = form.is_valid()
    if valid:
        context.update(_preview_context(form, project, request.GET.copy(), request.path))
    template_name = "ledger/page.html"
    if wants_fragment(request):
        template_name += "#ledger-preview"
        if valid:
            context["oob_controls"] = _controls_to_follow(request, form.cleaned_data["budget"])
        # htmx swaps only successful answers: a refusal comes as 200 so its message shows.
        return render(request, template_name, context)
    return render(request, template_name, context, status=200 if valid else 400)


def _controls_to_follow(request: HtmxHttpRequest, budget: int) -> list[str]:
    """Return the budget controls whose value is not the budget shown, in page order."""
    sent = request.GET.getlist("budget")
    return [
        kind
        for kind, value in zip(BUDGET_CONTROLS, sent, strict=False)
        if value.strip() != str(budget)
    ]


def _preview_context(form: LedgerForm, project: Project, query, path: str) -> dict:
    values = form.cleaned_data
    preview = _preview(form, project)
    if preview.is_empty:
        return {"preview": preview, "budget": values["budget"]}
    result = preview.results[values["mode"]]
    rows = _shown_rows(result, values["decision"], values["reason"])
    found = _find(rows, values["find"])
    number = found // ROWS_PER_PAGE + 1 if found is not None else values["page"] or 1
    page = Paginator(rows, ROWS_PER_PAGE).get_page(number)
    by_id = preview.reads[values["mode"]].store.by_id
    query.pop("page", None)
    query.setlist("budget", [str(values["budget"])])
    query.pop("budget_was", None)
    return {
        "preview": preview,
        "budget": values["budget"],
        "result": result,
        "modes": [
            (other, f"{other.coverage.share:.0%}")
            for other in (preview.results[m] for m in MODES_SHOWN if m in preview.results)
        ],
        **fidelity_context(preview, result),
        "bar": budget_bar_svg(
            list(result.by_category.items()), result.budget, used=result.used_tokens
        ),
        "page": page,
        # hx-push-url: the address names the page shown, so a reload or Back shows it again.
        "pager": pager(
            page, query_pages(query, path), label="Rows pages", target="#ledger-preview"
        ),
        "rows": [
            (
                row,
                _excerpt(by_id[row.memory_id].content),
                preview.inputs.pk_of[row.memory_id],
                by_id[row.memory_id],
                explain.decision(row, budget=result.budget),
                _placement(result, by_id, row, values["tie_break"]),
            )
            for row in page.object_list
        ],
        "find": values["find"],
        "found": found is not None,
        "row_count": len(rows),
        "query": query,  # the form's values, for the download link
    }


def _find(rows, memory_id: int | None) -> int | None:
    """Return the position of the memory's row among the rows shown, or None."""
    if memory_id is None:
        return None
    return next((i for i, row in enumerate(rows) if row.memory_id == memory_id), None)


def _placement(result: LedgerResult, by_id, row, tie_break) -> str:
    """Return what placed a competing row at its rank ("" for one that did not compete)."""
    if row.order is None:
        return ""
    previous = result.rows[row.order - 2].memory_id if row.order > 1 else None
    return explain.placement(
        by_id[row.memory_id], by_id[previous] if previous is not None else None, tie_break
    )


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


@require_GET
@role_required("viewer")
def download(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Return the rendered block as a text file, exactly as it would be injected."""
    project = _project(project_pk)
    form = _form(request, project, ledger_budget(project))
    if not form.is_valid():
        problems = "; ".join(error for errors in form.errors.values() for error in errors)
        return HttpResponse(problems, status=400, content_type="text/plain; charset=utf-8")
    preview = _preview(form, project)
    if preview.is_empty:
        raise Http404(f"{project.name} has no memories: there is no block to download.")
    values = form.cleaned_data
    result = preview.results[values["mode"]]
    name = f"ledger-{slugify(project.name) or project.pk}-{values['mode']}-{values['budget']}.txt"
    response = HttpResponse(result.rendered, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
