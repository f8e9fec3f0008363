"""Bulk curation from the memory list, merging, and undoing a merge.

They write composites too (an add, a merge's repointing), so they are curation's; they keep
the memories' addresses and names (`memories:bulk`, `memories:merge`, `memories:unmerge`):
`memadmin/urls.py` joins `memory_urls.py` to the memories' own.

The list's form posts the ticked rows here. The first post shows what would happen (how
many rows change, which stay, which cannot change and why); the confirmation posts again
with the count and the fingerprint of the rows it showed, and the service refuses if either
has moved, or on its own rules (a composite's head archived meanwhile): the review is then
shown again as things are now, with why, the reason typed kept, nothing written.
"""

from collections.abc import Sequence

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from memadmin.accounts.roles import role_required
from memadmin.audit.context import acting
from memadmin.audit.undo_messages import undo_message
from memadmin.core.numbers import ids_in
from memadmin.memories.bulk_forms import MERGE, BulkForm, MergeForm
from memadmin.memories.bulk_offers import ACTIONS
from memadmin.memories.models import Memory
from memadmin.memories.revision_fields import revisions_text
from memadmin.memories.selectors import memories_by_ids, memories_version
from memadmin.projects.store import StoreRowChanged
from memadmin.web.addresses import address
from memadmin.web.hidden_fields import carry
from memadmin.web.htmx_request import HtmxHttpRequest

from .bulk_forms import BulkActionForm
from .bulk_services import BulkPlan, StalePlan, bulk_apply, bulk_plan
from .merge_services import StaleMerge, memory_merge, memory_merge_undo

PAST_TENSE = {
    "archive": "Archived",
    "restore": "Restored",
    "move": "Moved",
    "add": "Added",
}


def _list_url(form: BulkForm) -> str:
    """Return the list page the selection came from (the form has been validated)."""
    return form.cleaned_data.get("next") or reverse("memories:list")


def _done(plan: BulkPlan) -> str:
    """Return what was done, saying for a restore which status each memory went back to."""
    count = len(plan.change)
    done = f"{PAST_TENSE[plan.action]} {count} memor{'y' if count == 1 else 'ies'}"
    if not plan.restore_to:
        return done + "."
    return done + ": " + ", ".join(f"{n} to {status}" for status, n in plan.restore_counts()) + "."


@require_POST
@role_required("editor")
def bulk(request: HtmxHttpRequest) -> HttpResponse:
    """Review a bulk action on the selected memories, or apply it once confirmed.

    A confirmation that cannot be applied as reviewed (the selection changed meanwhile, the
    service refuses it, or the reason is refused) shows the review again, as it is now, with
    the reason typed kept.
    """
    form = BulkActionForm(request.POST)
    if not form.is_valid() and not form.only_reason_refused():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect(_list_url(form))  # `next` is never refused: the list page it names
    data = form.cleaned_data
    if data["action"] == MERGE:
        return redirect(address(reverse("memories:merge"), ids=data["ids"]))
    options = {"category": data["category"] or "", "composite": data["composite"]}
    if "confirm" in request.POST and form.is_valid():
        try:
            # One change id for the whole action, so the message's Undo can revert it.
            with acting(actor=request.user, reason=data["reason"]) as change:
                plan = bulk_apply(
                    action=data["action"],
                    memory_ids=data["ids"],
                    expected=data["expected"] or 0,
                    fingerprint=data["fingerprint"],
                    expected_revisions=data["store_revisions"],
                    actor=request.user,
                    reason=data["reason"],
                    **options,
                )
        except StalePlan as stale:
            return _review(request, form, stale.plan, refusals=stale.messages, status=409)
        except ValidationError as error:
            plan = _plan_now(data["action"], data["ids"], options)
            return _review(request, form, plan, refusals=error.messages, status=409)
        if plan.change:  # the undo reverts the memories' versions, or takes the added out
            undo_message(
                request, _done(plan), change_id=change.change_id, by_row=len(plan.change) > 1
            )
        else:
            messages.success(request, _done(plan))
        return redirect(_list_url(form))
    try:
        plan = bulk_plan(action=data["action"], memories=memories_by_ids(data["ids"]), **options)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        return redirect(_list_url(form))
    return _review(request, form, plan, status=400 if form.errors else 200)


def _plan_now(action: str, ids: list[int], options: dict) -> BulkPlan:
    """Return what the action would do now, after a refused confirmation.

    An action its own rules refuse outright (a composite's head archived meanwhile) plans to
    change nothing: the review then offers no confirmation, only the refusal and the reason.
    """
    try:
        return bulk_plan(action=action, memories=memories_by_ids(ids), **options)
    except ValidationError:
        return BulkPlan(action=action)


def _target(action: str, data: dict) -> str:
    """Return where a move or an add takes the rows, as the review names it."""
    if action == "move":
        return data.get("category") or ""
    composite = data.get("composite") if action == "add" else None
    return "" if composite is None else str(composite)


def _confirmation(form: BulkForm, plan: BulkPlan) -> BulkForm:
    """Return the review's form: the selection, the action and what was reviewed, hidden.

    The count and the fingerprint are those of the rows shown: the service refuses the
    confirmation if either has moved since. The reason box is the posted form's.
    """
    data = form.cleaned_data
    composite = data.get("composite")
    initial = {
        "ids": data["ids"],
        "action": plan.action,
        "category": data.get("category") or "",
        "composite": composite.pk if composite is not None else "",
        "expected": len(plan.change),
        "fingerprint": plan.fingerprint(),
        "store_revisions": revisions_text(plan.change),
        "next": _list_url(form),
    }
    return BulkForm(initial=initial, categories=[])


def _review(
    request: HtmxHttpRequest,
    form: BulkForm,
    plan: BulkPlan,
    *,
    refusals: Sequence[str] = (),
    status: int,
) -> HttpResponse:
    """Render the review of `plan`; `refusals` say why a confirmation was not applied."""
    return render(
        request,
        "memories/bulk_confirm.html",
        {
            "plan": plan,
            "summary": plan.summary(_target(plan.action, form.cleaned_data)),
            "action_label": ACTIONS[plan.action],
            "data": form.cleaned_data,
            "confirmation": _confirmation(form, plan),
            "reason": form["reason"],
            "next": _list_url(form),
            "refusals": refusals,
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
@role_required("editor")
def merge(request: HtmxHttpRequest) -> HttpResponse:
    """Merge the memories named by `ids` into one whose text the person writes."""
    # The page lists the memories named; a post is checked by the form, which refuses an id
    # that is not one (a tampered page) with nothing merged.
    raw_ids = request.GET.getlist("ids") or request.POST.getlist("ids")
    ids = ids_in(raw_ids)
    sources = list(Memory.objects.select_related("project").filter(pk__in=ids).order_by("pk"))
    initial = {
        "ids": [source.pk for source in sources],
        "content": "\n".join(source.content for source in sources),
        "sources_version": memories_version(sources),
        "store_revisions": revisions_text(sources),
    }
    form = MergeForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST" and form.is_valid():
        shown = form.cleaned_data["sources_version"]
        try:
            if not shown:
                raise StaleMerge(sources, unseen=True)
            result = memory_merge(
                memories=sources,
                content=form.cleaned_data["content"],
                importance=form.cleaned_data["importance"],
                reason=form.cleaned_data["reason"],
                actor=request.user,
                expected_version=shown,
                expected_revisions=form.cleaned_data["store_revisions"],
            )
        except StaleMerge as stale:
            # The page again over the memories as they are now; merging again is a choice.
            sources = stale.sources
            form.add_error(None, stale.message)
            carry(form, "sources_version", memories_version(sources))
            status = 409
        except StoreRowChanged as error:
            # The agent revised a source since the page read it: merging again is over the
            # store's rows as they are now.
            form.add_error(None, ValidationError(error.messages))
            carry(form, "store_revisions", revisions_text(sources))
            status = 409
        except ValidationError as error:
            # Merge errors name no form field (they are about the selection): show them above.
            form.add_error(None, ValidationError(error.messages))
        else:
            undo_message(
                request,
                f"Merged {len(sources)} memories into #{result.display_id}.",
                url=reverse("memories:unmerge", args=[result.pk]),
            )
            return redirect("memories:detail", pk=result.pk)
    return render(
        request,
        "memories/merge.html",
        {"form": form, "sources": sources, "categories": sorted({s.category for s in sources})},
        status=400 if status == 200 and form.errors else status,
    )


@require_POST
@role_required("editor")
def unmerge(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Undo the merge that made this memory: restore its sources and their composites."""
    result = get_object_or_404(Memory, pk=pk)
    try:
        sources = memory_merge_undo(result=result, actor=request.user)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
        return redirect("memories:detail", pk=pk)
    messages.success(
        request,
        "Merge undone: restored " + ", ".join(f"#{s.display_id}" for s in sources) + ".",
    )
    return redirect("memories:detail", pk=sources[0].pk)
