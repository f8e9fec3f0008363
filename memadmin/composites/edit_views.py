"""Actions on one composite: members, type and cursor.

Each action is a plain POST form. Without JavaScript it redirects back to the composite's
page with a message; with htmx it answers with the page's composite section, so the picture,
the member list and the cursor change together.

Each form carries the fingerprint of the composite its page showed (`versions`). A change
over another version, or without one, is refused with nothing written: the composite comes
back as it is now, with what the person typed still in the form (409 without JavaScript; the
section, with the refusal shown, with htmx, which swaps only a success).
"""

from collections.abc import Callable

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from memadmin.accounts.roles import role_required
from memadmin.memories.models import Memory
from memadmin.web.htmx_request import HtmxHttpRequest

from . import selectors
from .forms import (
    CursorForm,
    MemberAddForm,
    MemberMoveForm,
    MemberRemoveForm,
    TitleForm,
    TypeForm,
)
from .models import Composite
from .services import (
    CompositeChanged,
    composite_cursor_advance,
    composite_cursor_back,
    composite_cursor_set,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
    composite_set_title,
    composite_set_type,
)
from .views import composite_context, load_composite


def _messages_of(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [message for messages in error.message_dict.values() for message in messages]
    return list(error.messages)


def _respond(
    request: HtmxHttpRequest,
    pk: int,
    action: Callable[[Composite], str | None],
    *,
    typed: str = "",
) -> HttpResponse:
    """Run `action` on the composite and answer with the page or its section.

    `action` returns a success message (or None); a ValidationError it raises is shown.
    `typed` names the page's form the request posted ("add_form", "title_form"): after a
    refusal it comes back with what was typed in it.
    """
    composite = get_object_or_404(Composite, pk=pk)
    errors: list[str] = []
    done = None
    stale = False
    try:
        done = action(composite)
    except CompositeChanged as changed:
        errors, stale = _messages_of(changed), True
    except ValidationError as error:
        errors = _messages_of(error)
    if request.htmx or stale:
        composite = load_composite(pk)
        kept = {typed: _TYPED[typed](request.POST, composite)} if typed and errors else {}
        context = composite_context(composite, errors=errors, done=done, **kept)
        if request.htmx:
            return render(request, "composites/detail.html#composite-section", context)
        return render(request, "composites/detail.html", context, status=409)
    for message in errors:
        messages.error(request, message)
    if done:
        messages.success(request, done)
    return redirect("composites:detail", pk=pk)


# The page's forms that hold something typed or chosen, bound again to what was posted.
_TYPED = {
    "add_form": lambda data, composite: MemberAddForm(data, project=composite.project),
    "type_form": lambda data, composite: TypeForm(data, initial={"type": composite.type}),
    "title_form": lambda data, composite: TitleForm(data),
}


def _form_errors(form) -> ValidationError:
    return ValidationError([e for errors in form.errors.values() for e in errors])


@require_POST
@role_required("editor")
def member_add(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Add members by id, at a step or at the end."""

    def add(composite: Composite) -> str:
        form = MemberAddForm(request.POST)
        if not form.is_valid():
            raise _form_errors(form)
        members = selectors.memories_by_display_ids(composite.project, form.cleaned_data["members"])
        position = form.cleaned_data["position"]
        composite_member_add(
            composite=composite,
            members=members,
            position=None if position is None else position - 1,
            actor=request.user,
            expected_fingerprint=form.cleaned_data["fingerprint"],
        )
        return f"Added {len(members)} member{'s' if len(members) != 1 else ''}."

    return _respond(request, pk, add, typed="add_form")


@require_POST
@role_required("editor")
def member_remove(request: HtmxHttpRequest, pk: int, member_pk: int) -> HttpResponse:
    """Remove one member; the memory itself stays."""

    def remove(composite: Composite) -> str:
        form = MemberRemoveForm(request.POST)
        if not form.is_valid():
            raise _form_errors(form)
        member = get_object_or_404(Memory, pk=member_pk)
        composite_member_remove(
            composite=composite,
            member=member,
            actor=request.user,
            expected_fingerprint=form.cleaned_data["fingerprint"],
        )
        return f"Removed #{member.display_id}."

    return _respond(request, pk, remove)


@require_POST
@role_required("editor")
def member_move(request: HtmxHttpRequest, pk: int, member_pk: int) -> HttpResponse:
    """Move one member to a step (1-based), e.g. one up or one down."""

    def move(composite: Composite) -> None:
        form = MemberMoveForm(request.POST)
        if not form.is_valid():
            raise _form_errors(form)
        member = get_object_or_404(Memory, pk=member_pk)
        composite_member_move(
            composite=composite,
            member=member,
            position=form.cleaned_data["position"] - 1,
            actor=request.user,
            expected_fingerprint=form.cleaned_data["fingerprint"],
        )

    return _respond(request, pk, move)


@require_POST
@role_required("editor")
def type_change(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Change the composite's type."""

    def change(composite: Composite) -> str:
        form = TypeForm(request.POST, initial={"type": composite.type})
        if not form.is_valid():
            raise _form_errors(form)
        composite_set_type(
            composite=composite,
            type=form.cleaned_data["type"],
            actor=request.user,
            expected_fingerprint=form.cleaned_data["fingerprint"],
        )
        return f"The composite is now a {form.cleaned_data['type']}."

    return _respond(request, pk, change, typed="type_form")


@require_POST
@role_required("editor")
def title_change(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Rename the composite (an empty title falls back to its type)."""

    def rename(composite: Composite) -> str:
        form = TitleForm(request.POST)
        if not form.is_valid():
            raise _form_errors(form)
        composite_set_title(
            composite=composite,
            title=form.cleaned_data["title"],
            actor=request.user,
            expected_fingerprint=form.cleaned_data["fingerprint"],
        )
        return "Title saved."

    return _respond(request, pk, rename, typed="title_form")


@require_POST
@role_required("editor")
def cursor_move(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Advance the cursor, move it back (both wrap around), or set it to a step."""

    def move(composite: Composite) -> None:
        form = CursorForm(request.POST)
        if not form.is_valid():
            raise _form_errors(form)
        action = form.cleaned_data["action"]
        seen = form.cleaned_data["fingerprint"]
        if action == "advance":
            composite_cursor_advance(
                composite=composite, actor=request.user, expected_fingerprint=seen
            )
        elif action == "back":
            composite_cursor_back(
                composite=composite, actor=request.user, expected_fingerprint=seen
            )
        else:
            position = form.cleaned_data["position"]
            if position is None:
                raise ValidationError("Choose the step to put the cursor on.")
            composite_cursor_set(
                composite=composite,
                position=position - 1,
                actor=request.user,
                expected_fingerprint=seen,
            )

    return _respond(request, pk, move)
