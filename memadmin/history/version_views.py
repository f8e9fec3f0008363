"""Versions of a memory and of a category's criteria: list, compare side by side, revert.

A version is a historical row, named by its `history_id`. An unknown version is 404; a
version of another object is 400; a revert that would break a rule is refused with the
reason (400) and writes nothing.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import role_required
from memadmin.memories.models import Memory
from memadmin.memories.revision_fields import revisions_text
from memadmin.memories.services import StaleEdit
from memadmin.projects.models import Project
from memadmin.projects.store import StoreRowChanged
from memadmin.taxonomy.services import StaleCriteria
from memadmin.web.hidden_fields import carry
from memadmin.web.htmx_request import HtmxHttpRequest

from . import selectors
from .compare import criteria_comparison, memory_comparison
from .forms import CompareForm, RevertForm
from .revert_services import (
    criteria_revert,
    criteria_revert_refusals,
    memory_revert,
    memory_revert_refusals,
)
from .selectors import ForeignVersion, UnknownVersion
from .timeline import memory_timeline

# A revision no category has: a revert that sent none is refused as a stale one.
NOT_SAID = -1


class BadVersion(Exception):
    """A request named a version wrongly; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def _version(find, *args):
    """Return the version `find` looks up, or raise BadVersion (404 unknown, 400 foreign)."""
    try:
        return find(*args)
    except UnknownVersion as missing:
        raise Http404(str(missing)) from missing
    except ForeignVersion as foreign:
        raise BadVersion(str(foreign), 400) from foreign


def _labels(old, new) -> dict:
    return {"old_label": f"Version {old.number}", "new_label": f"Version {new.number}"}


def _rows(versions: list, posted: RevertForm, expected: int, revisions: str = "") -> list:
    """Return the versions newest first, each with its compare radios and its revert form
    over the object's version `expected`.

    The version a refused revert asked for keeps the reason that was typed.
    """
    rows = list(reversed(versions))
    CompareForm(versions=rows).pick(rows)
    for version in rows:
        asked = posted.is_bound and posted.cleaned_data.get("version") == version.history_id
        version.revert_form = RevertForm.for_version(
            version.history_id,
            expected=expected,
            data=posted.data if asked else None,
            store_revisions=revisions,
        )
    return rows


def _compare_revert(old, expected: int, revisions: str = "") -> RevertForm:
    """Return the compare page's form reverting to its older side ("revert-reason")."""
    return RevertForm.for_version(
        old.history_id, expected=expected, auto_id="revert-%s", store_revisions=revisions
    )


def _refused_as_stale(form: RevertForm, current_version: int, message: str) -> None:
    """Show a stale revert's refusal; its form now carries the version stored now."""
    form.add_error(None, message)
    carry(form, "expected_version", current_version)


def _bad_request(request, message: str) -> HttpResponse:
    return render(request, "audit/bad_version.html", {"message": message}, status=400)


# --- memories


@require_GET
@role_required("viewer")
def memory_history(request: HtmxHttpRequest, memory_pk: int) -> HttpResponse:
    """Show a memory's whole timeline and its versions, to compare or revert to."""
    memory = get_object_or_404(Memory.objects.select_related("project"), pk=memory_pk)
    return _memory_history_page(request, memory, RevertForm())


def _memory_history_page(request, memory, revert_form, status=200) -> HttpResponse:
    versions = selectors.memory_versions(memory.pk)
    refusals = memory_revert_refusals(memory, versions)
    for version in versions:
        version.revert_refusal = refusals.get(version.history_id, "")
    return render(
        request,
        "audit/memory_history.html",
        {
            "memory": memory,
            "versions": _rows(versions, revert_form, memory.updated_at, revisions_text([memory])),
            "latest": versions[-1] if versions else None,
            "timeline": memory_timeline(memory),
            "revert_form": revert_form,
        },
        status=status,
    )


@require_GET
@role_required("viewer")
def memory_compare(request: HtmxHttpRequest, memory_pk: int) -> HttpResponse:
    """Show two versions of a memory side by side (`?a=` older, `?b=` newer)."""
    memory = get_object_or_404(Memory, pk=memory_pk)
    form = CompareForm(request.GET)
    if not form.is_valid():
        return _bad_request(request, "Choose two versions to compare.")
    try:
        old = _version(selectors.memory_version, memory.pk, form.cleaned_data["a"])
        new = _version(selectors.memory_version, memory.pk, form.cleaned_data["b"])
    except BadVersion as bad:
        return _bad_request(request, str(bad))
    if old.history_date > new.history_date:
        old, new = new, old
    text, fields = memory_comparison(old, new)
    return render(
        request,
        "audit/memory_compare.html",
        {
            "memory": memory,
            "old": old,
            "new": new,
            "text": text,
            "fields": fields,
            "revert_form": _compare_revert(old, memory.updated_at, revisions_text([memory])),
            **_labels(old, new),
        },
    )


@require_POST
@role_required("editor")
def memory_revert_view(request: HtmxHttpRequest, memory_pk: int) -> HttpResponse:
    """Save an earlier version of a memory as its newest one, or say why that is refused."""
    memory = get_object_or_404(Memory.objects.select_related("project"), pk=memory_pk)
    form = RevertForm(request.POST)
    if not form.is_valid():
        return _bad_request(request, "Choose the version to revert to.")
    try:
        version = _version(selectors.memory_version, memory.pk, form.cleaned_data["version"])
    except BadVersion as bad:
        return _bad_request(request, str(bad))
    expected = form.cleaned_data["expected_version"]
    try:
        if expected is None:
            raise StaleEdit(memory, unseen=True)
        memory_revert(
            memory=memory,
            version=version,
            actor=request.user,
            reason=form.cleaned_data["reason"],
            expected_updated_at=expected,
            expected_revisions=form.cleaned_data["store_revisions"],
        )
    except StaleEdit as stale:
        _refused_as_stale(form, stale.current.updated_at, stale.message)
        return _memory_history_page(request, stale.current, form, status=409)
    except StoreRowChanged as changed:
        # The agent revised the row since the page read it: reverting again is over it.
        form.add_error(None, changed)
        carry(form, "store_revisions", revisions_text([memory]))
        return _memory_history_page(request, memory, form, status=409)
    except ValidationError as refused:
        form.add_error(None, refused)
        return _memory_history_page(request, memory, form, status=400)
    messages.success(request, f"Reverted to version {version.number}; that is a new version.")
    return redirect("memories:detail", pk=memory.pk)


# --- criteria


def _project(project_pk: int) -> Project:
    return get_object_or_404(Project.objects.select_related("pack"), pk=project_pk)


@require_GET
@role_required("viewer")
def criteria_history(request: HtmxHttpRequest, project_pk: int, category: str) -> HttpResponse:
    """Show every version of a category's criteria, to compare or revert to."""
    return _criteria_history_page(request, _project(project_pk), category, RevertForm())


def _criteria_history_page(request, project, name, revert_form, status=200) -> HttpResponse:
    versions = selectors.criteria_versions(project.pk, name)
    if not versions:
        raise Http404(f"{project.name} has no category {name} and never had.")
    latest = versions[-1]
    refusals = criteria_revert_refusals(versions)
    for version in versions:
        version.revert_refusal = refusals.get(version.history_id, "")
    return render(
        request,
        "audit/criteria_history.html",
        {
            "project": project,
            "name": name,
            "versions": _rows(versions, revert_form, latest.revision),
            "latest": latest,
            "gone": latest.history_type == "-",
            "revert_form": revert_form,
        },
        status=status,
    )


@require_GET
@role_required("viewer")
def criteria_compare(request: HtmxHttpRequest, project_pk: int, category: str) -> HttpResponse:
    """Show the criteria of two versions of a category side by side."""
    project = _project(project_pk)
    form = CompareForm(request.GET)
    if not form.is_valid():
        return _bad_request(request, "Choose two versions to compare.")
    try:
        old = _version(selectors.criteria_version, project.pk, category, form.cleaned_data["a"])
        new = _version(selectors.criteria_version, project.pk, category, form.cleaned_data["b"])
    except BadVersion as bad:
        return _bad_request(request, str(bad))
    if old.history_date > new.history_date:
        old, new = new, old
    return render(
        request,
        "audit/criteria_compare.html",
        {
            "project": project,
            "name": category,
            "old": old,
            "new": new,
            "fields": criteria_comparison(old, new),
            "revert_form": _compare_revert(old, selectors.criteria_revision(project.pk, category)),
            **_labels(old, new),
        },
    )


@require_POST
@role_required("curator")
def criteria_revert_view(request: HtmxHttpRequest, project_pk: int, category: str) -> HttpResponse:
    """Put an earlier version's criteria in force again, or say why that is refused."""
    project = _project(project_pk)
    form = RevertForm(request.POST)
    if not form.is_valid():
        return _bad_request(request, "Choose the version to revert to.")
    try:
        version = _version(
            selectors.criteria_version, project.pk, category, form.cleaned_data["version"]
        )
    except BadVersion as bad:
        return _bad_request(request, str(bad))
    expected = form.cleaned_data["expected_version"]
    try:
        criteria_revert(
            version=version,
            actor=request.user,
            reason=form.cleaned_data["reason"],
            expected_revision=NOT_SAID if expected is None else expected,
        )
    except StaleCriteria as stale:
        message = (
            "This revert did not say which version of the criteria it replaces, so it could "
            "overwrite a newer save; nothing was changed."
            if expected is None
            else stale.message
        )
        _refused_as_stale(form, stale.current.revision, message)
        return _criteria_history_page(request, project, category, form, status=409)
    except ValidationError as refused:
        form.add_error(None, refused)
        return _criteria_history_page(request, project, category, form, status=400)
    messages.success(request, f"Criteria reverted to version {version.number}.")
    return redirect("audit:criteria_history", project_pk=project.pk, category=category)
