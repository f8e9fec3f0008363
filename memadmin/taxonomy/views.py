"""Pages of the criteria area: each category's criteria editor.

The area's overview, its pack page and its facts checker count, move or write memories, so
they are the memories' (`memadmin/memories/criteria_urls.py`).

No page here adds, renames or deletes a category: names belong to the pack.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from memadmin.accounts.roles import has_role, role_required
from memadmin.audit.context import acting
from memadmin.audit.undo_messages import undo_message
from memadmin.projects.models import Project
from memadmin.projects.store import CriteriaStoreRefused
from memadmin.web.htmx_request import HtmxHttpRequest

from .criteria_fields import FIELDS
from .editor import conflict_fields, editor_context, field_views
from .forms import CriteriaForm, RevisionForm
from .models import Category
from .selectors import category_by_name
from .services import (
    StaleCriteria,
    criteria_override_clear,
    criteria_override_keep,
    criteria_override_save,
)

PAGE = "taxonomy/category.html"
EDITOR = PAGE + "#editor-section"


def project_or_404(project_pk: int) -> Project:
    """Return the project, which must run a pack, or raise Http404."""
    project = get_object_or_404(Project.objects.select_related("pack"), pk=project_pk)
    if project.pack_id is None:
        raise Http404("This project runs no pack yet.")
    return project


def category_or_404(project_pk: int, name: str) -> Category:
    """Return the project's category of that name, or raise Http404."""
    try:
        return category_by_name(project_or_404(project_pk), name)
    except Category.DoesNotExist as missing:
        raise Http404("No such category in this project's pack.") from missing


@require_GET
@role_required("viewer")
def category_detail(request: HtmxHttpRequest, project_pk: int, name: str) -> HttpResponse:
    """Show a category's criteria; `?edit=FIELD` opens one field for editing in place.

    An htmx request for `?edit=FIELD` (or `?field=FIELD`, to cancel) gets that field only.
    """
    category = category_or_404(project_pk, name)
    editing = request.GET.get("edit", "")
    shown = request.GET.get("field", "")
    form = None
    if editing in FIELDS and has_role(request.user, "curator"):
        form = CriteriaForm(
            criteria=category.effective_criteria, revision=category.revision, only=editing
        )
    if request.htmx and (form is not None or shown in FIELDS):
        wanted = editing if form is not None else shown
        field = next(f for f in field_views(category, form=form) if f.name == wanted)
        context = {"category": category, "project": category.project, "field": field, "form": form}
        return render(request, PAGE + "#field-section", context)
    return render(request, PAGE, editor_context(category, form=form))


@require_POST
@role_required("curator")
def field_save(request: HtmxHttpRequest, project_pk: int, name: str, field: str) -> HttpResponse:
    """Save one criteria field edited in place; htmx gets the whole editor section back."""
    if field not in FIELDS:
        raise Http404("No such criteria field.")
    category = category_or_404(project_pk, name)
    form = CriteriaForm(
        request.POST, criteria=category.effective_criteria, revision=category.revision, only=field
    )
    return _save(request, category, form, field=field)


@require_http_methods(["GET", "POST"])
@role_required("curator")
def criteria_edit(request: HtmxHttpRequest, project_pk: int, name: str) -> HttpResponse:
    """Edit every field of a category's criteria in one plain form."""
    category = category_or_404(project_pk, name)
    form = CriteriaForm(
        request.POST or None, criteria=category.effective_criteria, revision=category.revision
    )
    if request.method == "GET":
        return render(request, "taxonomy/edit.html", {"category": category, "form": form})
    return _save(request, category, form, field=None)


def _save(request, category: Category, form: CriteriaForm, *, field: str | None) -> HttpResponse:
    conflict = None
    if form.is_valid():
        try:
            saved = criteria_override_save(
                category=category,
                criteria=form.criteria(),
                actor=request.user,
                # A form without its revision is refused as a stale one: 0 is no category's.
                expected_revision=form.cleaned_data["revision"] or 0,
                reason=form.cleaned_data.get("reason", ""),
            )
        except StaleCriteria as stale:
            category = stale.current
            conflict = conflict_fields(stale.current.effective_criteria, stale.yours)
            # The conflict box says what happened; the form keeps the person's text only.
            form = _rebound(request, form, category, field)
        except ValidationError as error:
            form.add_criteria_error(error)
        else:
            return _saved(request, saved, "Saved." if saved.revision != category.revision else "")
    status = 409 if conflict is not None else 400
    if field is None:
        context = {"category": category, "form": form, "conflict": conflict}
        return render(request, "taxonomy/edit.html", context, status=status)
    context = editor_context(category, form=form, conflict=conflict)
    if request.htmx:
        # htmx swaps only 2xx answers; the errors are in the section it swaps in.
        return render(request, EDITOR, context)
    return render(request, PAGE, context, status=status)


def _rebound(request, form: CriteriaForm, current: Category, field: str | None) -> CriteriaForm:
    """Return the refused form with the person's text kept and the current revision."""
    data = request.POST.copy()
    data["revision"] = str(current.revision)
    rebound = CriteriaForm(
        data, criteria=current.effective_criteria, revision=current.revision, only=field
    )
    rebound.is_valid()
    return rebound


def _saved(request, category: Category, message: str) -> HttpResponse:
    if request.htmx:
        return render(request, EDITOR, editor_context(category, saved=message or "No change."))
    messages.success(request, message or "Nothing changed.")
    return redirect(_page_url(category))


def _page_url(category: Category) -> str:
    return reverse("taxonomy:category", args=[category.project_id, category.name])


def _revision(request) -> int:
    """Return the revision the request was made from; 0 (no category's) if it sent none.

    Revisions start at 1, so a clear or keep that does not say what it saw is refused as a
    stale one is.
    """
    return RevisionForm(request.POST).seen()


# What a refused clear or keep says, and how its conflict box heads the two texts.
REFUSALS = {
    "clear": {
        "message": "Someone else changed these criteria while you were looking; the override "
        "was not cleared and nothing was done. Compare, then clear it again if you still "
        "want the pack default.",
        "theirs": "Their version (in force)",
        "yours": "Pack default (what clearing puts in force)",
    },
    "keep": {
        "message": "This category changed while you were looking; the override was not kept "
        "and nothing was done. Compare, then keep it again if you still want it.",
        "theirs": "Pack default now",
        "yours": "Pack default as you saw it",
    },
}


def _apply(request, project_pk: int, name: str, verb: str, service, done: str) -> HttpResponse:
    category = category_or_404(project_pk, name)
    revision = _revision(request)
    try:
        with acting(actor=request.user) as change:
            updated = service(category=category, actor=request.user, expected_revision=revision)
    except StaleCriteria as stale:
        return _refused(request, stale, verb, revision)
    except CriteriaStoreRefused as refused:
        # The project's store refused the criteria keys: nothing was done on either side.
        messages.error(request, " ".join(refused.messages))
        return redirect(_page_url(category))
    if verb == "clear" and updated.revision != category.revision:
        # The cleared edits can come back: the note carries an Undo of this change.
        if request.htmx:
            context = editor_context(updated, saved=done)
            context["undo"] = reverse("overview:undo", args=[change.change_id])
            return render(request, EDITOR, context)
        undo_message(request, done, change_id=change.change_id)
        return redirect(_page_url(updated))
    return _saved(request, updated, done if updated.revision != category.revision else "")


def _refused(request, stale: StaleCriteria, verb: str, revision: int) -> HttpResponse:
    """Show a clear or keep refused by a newer change as the editor shows a refused save.

    The conflict box (an alert) says what was not done and sets two texts side by side: for
    a clear, their criteria in force and the pack default it would have put in force; for a
    keep, the pack default now and the one the person saw (their revision's version). A keep
    is refused only while the flag is up, that is when the pack moved again: any edit of the
    override lowers the flag and makes a keep a no-op.
    """
    current = stale.current
    theirs, yours = current.effective_criteria, stale.yours
    if verb == "keep":
        seen = current.history.filter(revision=revision).order_by("-history_date", "-history_id")
        version = seen.first()
        theirs = current.default_criteria
        yours = version.default_criteria if version is not None else theirs
    context = editor_context(current, conflict=conflict_fields(theirs, yours))
    context["refusal"] = REFUSALS[verb]
    if request.htmx:
        # htmx swaps only 2xx answers; the refusal is in the section it swaps in.
        return render(request, EDITOR, context)
    return render(request, PAGE, context, status=409)


@require_POST
@role_required("curator")
def override_clear(request: HtmxHttpRequest, project_pk: int, name: str) -> HttpResponse:
    """Clear a category's override so the pack default is in force again."""
    return _apply(request, project_pk, name, "clear", criteria_override_clear, "Override cleared.")


@require_POST
@role_required("curator")
def override_keep(request: HtmxHttpRequest, project_pk: int, name: str) -> HttpResponse:
    """Keep an override whose pack default moved, lowering the flag."""
    return _apply(request, project_pk, name, "keep", criteria_override_keep, "Override kept.")
