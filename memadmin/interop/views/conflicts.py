"""Resolve a sync conflict (a memory's, or a composite's) from its page or Import/export."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from memadmin.accounts.roles import role_required
from memadmin.composites.forms import add_service_error
from memadmin.composites.models import Composite
from memadmin.web.htmx_request import HtmxHttpRequest

from ..composites.conflict_services import CHOICES as COMPOSITE_CHOICES
from ..composites.conflict_services import composite_conflict_resolve
from ..conflicts.services import CHOICES, KEEP_MERGED, conflict_resolve
from ..forms import CompositeConflictResolveForm, ConflictResolveForm
from ..models import SyncConflict
from ..selectors import conflict_diff
from .index import index_page


@require_POST
@role_required("curator")
def conflict_resolve_view(request: HtmxHttpRequest, pk: int):
    """Keep one side of a conflict, or save a merged text; then go back where the form was.

    A refusal (no merged text, a text another memory has, a store that changed again)
    shows the conflict on a page of its own, with the error at the box and the text kept.
    """
    conflict = get_object_or_404(
        SyncConflict.objects.select_related("memory", "memory__project"), pk=pk
    )
    form = ConflictResolveForm(request.POST, conflict=conflict)
    if form.is_valid():
        keep = form.cleaned_data["keep"]
        try:
            conflict_resolve(
                conflict=conflict,
                keep=keep,
                content=form.cleaned_data["content"],
                reason=form.cleaned_data["reason"],
                actor=request.user,
            )
        except ValidationError as error:
            add_service_error(form, error)
        else:
            messages.success(request, f"Conflict resolved: {CHOICES[keep]}.")
            return redirect(_back_to(form.cleaned_data["next"], conflict.memory_id))
    stale = any(
        error.code in {"store_changed", "store_busy"}
        for error in form.errors.as_data().get("__all__", [])
    )
    back = _back_to(form.cleaned_data.get("next", ""), conflict.memory_id)
    merged = form.data.get("keep") == KEEP_MERGED
    return render(
        request,
        "interop/conflict_resolve.html",
        {
            "conflict": conflict,
            "diff": conflict_diff(conflict),
            "refused": form,
            # A refused merge keeps its text in the box; a refused side keeps its reason in its
            # own box and offers the merge afresh.
            "merge_form": form if merged else ConflictResolveForm(conflict=conflict, next_url=back),
            "side_form": _refused_side(conflict, back, None if merged else request.POST),
            "can_resolve": True,
            "next": back,
        },
        status=409 if stale else 400,
    )


def _refused_side(conflict: SyncConflict, back: str, data) -> ConflictResolveForm:
    """Return the side buttons' form: bound to a refused side post (its reason and error),
    carrying `back`, the checked page to go back to, never the `next` posted."""
    if data is None:
        return ConflictResolveForm.for_sides(conflict, back)
    data = data.copy()
    data["next"] = back
    side = ConflictResolveForm.for_sides(conflict, back, data)
    side.is_valid()  # the errors it shows at its boxes
    return side


def _back_to(target: str, memory_pk: int) -> str:
    """Return the page the form was on (its `next`, this site's only); else the memory's page."""
    return target or reverse("memories:detail", args=[memory_pk])


@require_POST
@role_required("curator")
def composite_conflict_resolve_view(request: HtmxHttpRequest, composite_pk: int):
    """Keep memadmin's composite or the store's row; then go back to the Import/export page."""
    composite = get_object_or_404(Composite, pk=composite_pk)
    form = CompositeConflictResolveForm(request.POST)
    try:
        if not form.is_valid():
            raise ValidationError([e for errors in form.errors.values() for e in errors])
        keep = form.cleaned_data["keep"]
        kept = composite_conflict_resolve(
            composite=composite,
            keep=keep,
            version=form.cleaned_data["version"],
            reason=form.cleaned_data["reason"],
            actor=request.user,
        )
    except ValidationError as error:
        # A stale form or a store row written since is a conflict: the page as it is now.
        messages.error(request, " ".join(error.messages))
        stale = getattr(error, "code", "") in {"composite_changed", "store_changed"}
        response = index_page(request)
        response.status_code = 409 if stale else 400
        return response
    gone = "" if kept is not None else " The store had deleted it, so it is deleted here."
    messages.success(
        request, f"Composite {composite_pk}: conflict resolved, {COMPOSITE_CHOICES[keep]}.{gone}"
    )
    return redirect("interop:index")
