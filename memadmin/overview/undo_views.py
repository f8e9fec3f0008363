"""Undo a change from the message that reported it: a plain POST form, no script needed.

The same address, opened (GET), lists the memories the change wrote, each with its own Undo:
after a bulk action, one row can be put back and the rest kept.
"""

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from memadmin.accounts.roles import role_required
from memadmin.web.hidden_fields import BackForm
from memadmin.web.number_fields import WholeNumberField

from .undo_services import change_memories, change_undo, memory_change_undo


class UndoPartForm(BackForm):
    """Which memory of the change to put back (none: the whole change)."""

    memory = WholeNumberField(required=False, min_value=1, widget=forms.HiddenInput)


@require_http_methods(["GET", "POST"])
@role_required("editor")
def undo(request: HttpRequest, change_id) -> HttpResponse:
    """Undo the change (or one memory of it) and go back where the person was; a refusal
    says why. A GET lists the memories the change wrote, each with its Undo."""
    if request.method == "GET":
        here = request.get_full_path()  # after one row, back here for the next
        rows = [
            (memory, before, UndoPartForm(initial={"memory": memory.pk, "next": here}))
            for memory, before in change_memories(change_id)
        ]
        return render(
            request,
            "overview/undo.html",
            {"change_id": change_id, "rows": rows, "whole": UndoPartForm(initial={"next": here})},
        )
    form = UndoPartForm(request.POST)
    if not form.is_valid():
        messages.error(request, "That is not a memory of this change; nothing was undone.")
        return redirect("home")
    part = form.cleaned_data["memory"]
    try:
        if part is None:
            undone = change_undo(change_id=change_id, actor=request.user)
        else:
            undone = memory_change_undo(change_id=change_id, memory_id=part, actor=request.user)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
    else:
        messages.success(request, undone.summary())
    return redirect(form.target() or "home")
