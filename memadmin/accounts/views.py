"""The people page: who may do what, and changing it. Admins only."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from memadmin.web.htmx_request import HtmxHttpRequest

from .forms import PersonForm, RoleForm
from .roles import ROLE_DESCRIPTIONS, role_of, role_required
from .selectors import people as people_list
from .services import StaleRole, person_set_role
from .services import person_create as create_person


def _page(request, *, person_form=None, role_errors=None, status=200) -> HttpResponse:
    everyone = people_list()
    for person in everyone:
        person.role_errors = (role_errors or {}).get(person.pk, [])
        person.role_form = RoleForm.for_person(person)
    return render(
        request,
        "accounts/people.html",
        {
            "people": everyone,
            "person_form": person_form or PersonForm(),
            "descriptions": ROLE_DESCRIPTIONS,
        },
        status=status,
    )


@require_GET
@role_required("admin")
def people(request: HtmxHttpRequest) -> HttpResponse:
    """Show every person with their role, a form to change it, and one to add a person."""
    return _page(request)


@require_POST
@role_required("admin")
def person_create(request: HtmxHttpRequest) -> HttpResponse:
    """Add a person with a role."""
    form = PersonForm(request.POST)
    if form.is_valid():
        try:
            user = create_person(actor=request.user, **form.cleaned_data)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(
                request, f"{user.get_username()} can now sign in as {form.cleaned_data['role']}."
            )
            return redirect("accounts:people")
    return _page(request, person_form=form, status=400)


@require_POST
@role_required("admin")
def person_role(request: HtmxHttpRequest, user_pk: int) -> HttpResponse:
    """Give a person another role."""
    user = get_object_or_404(get_user_model(), pk=user_pk)
    form = RoleForm(request.POST, initial={"role": role_of(user)})
    if form.is_valid():
        shown = form.cleaned_data["shown_role"]
        if not shown:
            refusal = (
                f"This change did not say which role of {user.get_username()} it replaces, "
                "so it could overwrite a newer change. Nothing was changed; choose again."
            )
            return _page(request, role_errors={user.pk: [refusal]}, status=409)
        if not form.cleaned_data["role"]:
            return redirect("accounts:people")  # no role before, none chosen: nothing changes
        try:
            person_set_role(
                user=user,
                role=form.cleaned_data["role"],
                actor=request.user,
                reason=form.cleaned_data["reason"],
                expected_role=shown,
            )
        except StaleRole as stale:
            return _page(request, role_errors={user.pk: stale.messages}, status=409)
        except ValidationError as error:
            return _page(request, role_errors={user.pk: error.messages}, status=400)
        messages.success(request, f"{user.get_username()} is now {form.cleaned_data['role']}.")
        return redirect("accounts:people")
    return _page(request, role_errors={user.pk: ["Choose one of the four roles."]}, status=400)
