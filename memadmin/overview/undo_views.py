"""Undo a change from the message that reported it: a plain POST form, no script needed."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from memadmin.accounts.roles import role_required
from memadmin.hidden_fields import BackForm

from .undo_services import change_undo


@require_POST
@role_required("editor")
def undo(request: HttpRequest, change_id) -> HttpResponse:
    """Undo the change and go back where the person was; a refusal says why."""
    try:
        undone = change_undo(change_id=change_id, actor=request.user)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
    else:
        messages.success(request, undone.summary())
    return redirect(BackForm(request.POST).target() or "home")
