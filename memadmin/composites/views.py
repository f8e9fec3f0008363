"""Pages of the composites area: the list with thumbnails, a composite's page, create, delete.

Deleting asks first: the delete URL shows what goes and what stays on GET, and deletes on POST,
so the confirmation works without JavaScript. The POST carries a fingerprint of what the page
showed; if someone changed the composite meanwhile, nothing is deleted and the page comes back
as the composite is now, the reason typed kept.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from memadmin.accounts.roles import role_required
from memadmin.audit.context import acting
from memadmin.audit.undo_messages import undo_message
from memadmin.core.numbers import parse_id
from memadmin.memories.models import Memory
from memadmin.web.hidden_fields import carry
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page
from memadmin.web.pagination import pager, query_pages

from . import selectors
from .forms import (
    CompositeCreateForm,
    CompositeFilterForm,
    CursorForm,
    DeleteForm,
    FreezeForm,
    MemberAddForm,
    TitleForm,
    TypeForm,
    VersionedForm,
    add_service_error,
)
from .models import Composite
from .pictures import composite_picture
from .services import CompositeChanged, composite_create, composite_delete, composite_fingerprint
from .versions import fingerprint_of

PAGE_SIZE = 24


@require_GET
@role_required("viewer")
def composite_list(request: HtmxHttpRequest) -> HttpResponse:
    """List composites with a thumbnail each, filtered by project, type, head category, size."""
    form = CompositeFilterForm(request.GET or None, head_categories=selectors.head_categories())
    # A value the form refuses (a head category nothing heads any more, a stale bookmark) drops
    # that one filter; the others still apply.
    form.is_valid()
    filters = getattr(form, "cleaned_data", {})
    composites = selectors.composite_list(
        project=filters.get("project"),
        type=filters.get("type", ""),
        head_category=filters.get("head_category", ""),
        size=filters.get("size", ""),
    )
    page = Paginator(composites, PAGE_SIZE).get_page(request.GET.get("page"))
    cards = [(composite, composite_picture(composite, size="thumb")) for composite in page]
    template_name = partial_or_page(request, "composites/list.html", "list-section")
    return render(
        request,
        template_name,
        {
            "form": form,
            "page": page,
            "cards": cards,
            "pager": pager(
                page, query_pages(request.GET, request.path), label="Pages of composites"
            ),
        },
    )


def composite_context(composite: Composite, **extra) -> dict:
    """Return what the composite page and its htmx section need."""
    rows = list(composite.members.all())
    return {
        "composite": composite,
        "rows": rows,
        "cursor_row": rows[composite.cursor]
        if composite.type == Composite.Type.SEQUENCE and 0 <= composite.cursor < len(rows)
        else None,
        "picture": composite_picture(composite),
        "head_archived": composite.head.status == Memory.Status.ARCHIVED,
        "add_form": MemberAddForm(project=composite.project),
        "type_form": TypeForm(initial={"type": composite.type}),
        "title_form": TitleForm(initial={"title": composite.title}),
        "cursor_form": CursorForm.for_composite(composite, rows),
        # The version every form of the page carries (`versions`), from the rows shown; no
        # id, as the page has one such field in each of its forms.
        "version_form": VersionedForm(
            initial={"fingerprint": fingerprint_of(composite, [row.member_id for row in rows])},
            auto_id=False,
        ),
        "freeze_form": FreezeForm(),
        "reference_sets": selectors.reference_sets_of(composite),
        "types": Composite.Type.choices,
        **extra,
    }


def load_composite(pk: int) -> Composite:
    """Return the composite with everything its page shows, or raise Http404."""
    try:
        return selectors.composite_detail(pk)
    except Composite.DoesNotExist as missing:
        raise Http404("No such composite.") from missing


@require_GET
@role_required("viewer")
def composite_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Show one composite: its picture, members in order, cursor and snapshots."""
    composite = load_composite(pk)
    template_name = partial_or_page(request, "composites/detail.html", "composite-section")
    return render(request, template_name, composite_context(composite))


@require_http_methods(["GET", "POST"])
@role_required("editor")
def composite_new(request: HtmxHttpRequest) -> HttpResponse:
    """Create a composite: a head and members by id; `?head=` (a memory's pk) fills the head in.

    Every id that names no memory, the head's and the members', is reported at once.
    """
    preset = _preset_head(request.GET.get("head", ""))
    initial = {"project": preset.project.pk, "head": str(preset.display_id)} if preset else {}
    data = None
    if request.method == "POST":
        data = request.POST.copy()
        for name, value in initial.items():  # a form posted from a memory's page names its head
            data.setdefault(name, value)
    form = CompositeCreateForm(data, initial=initial, project=preset.project if preset else None)
    if request.method == "POST":
        head, members = _resolve_ids(form)
        if head is not None and not form.errors:
            try:
                composite = composite_create(
                    head=head,
                    type=form.cleaned_data["type"],
                    title=form.cleaned_data["title"],
                    members=members,
                    actor=request.user,
                    reason=form.cleaned_data["reason"],
                )
            except ValidationError as error:
                add_service_error(form, error)
            else:
                messages.success(request, "Composite created.")
                return redirect("composites:detail", pk=composite.pk)
    return render(
        request,
        "composites/new.html",
        {"form": form, "head": preset},
        status=400 if form.errors else 200,
    )


def _resolve_ids(form: CompositeCreateForm) -> tuple[Memory | None, list[Memory]]:
    """Look up the typed head and members, adding an error for every id that names nothing."""
    form.is_valid()
    cleaned = getattr(form, "cleaned_data", {})
    project = cleaned.get("project")
    head, members = None, []
    if project is None:
        return head, members
    if "head" in cleaned:
        try:
            head = selectors.memories_by_display_ids(project, [cleaned["head"]])[0]
        except ValidationError as error:
            form.add_error("head", error)
    if "members" in cleaned:
        try:
            members = selectors.memories_by_display_ids(project, cleaned["members"])
        except ValidationError as error:
            form.add_error("members", error)
    return head, members


def _preset_head(value: str) -> Memory | None:
    """Return the memory named by `?head=` (its pk), None without one; 404 if it names none."""
    if not value:
        return None
    pk = parse_id(value)
    if pk is None:
        raise Http404("No such memory.")
    return get_object_or_404(Memory.objects.select_related("project"), pk=pk)


@require_http_methods(["GET", "POST"])
@role_required("editor")
def composite_remove(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Show what deleting the composite removes and keeps (GET); delete it (POST).

    The memories stay. The optional "why" becomes the reason on the deletion's audit event.
    A composite changed since the page was shown is not deleted: the page comes back, 409.
    """
    composites = Composite.objects.select_related("head", "project")
    composite = get_object_or_404(composites, pk=pk)
    # Bound on every POST, even one without a reason: the reason is optional.
    form = DeleteForm(request.POST if request.method == "POST" else None)
    status = 400 if form.errors else 200
    if form.is_valid():
        try:
            if not form.cleaned_data["fingerprint"]:
                raise CompositeChanged(unseen=True)
            with acting(actor=request.user, reason=form.cleaned_data["reason"]) as change:
                composite_delete(
                    composite=composite,
                    actor=request.user,
                    reason=form.cleaned_data["reason"],
                    expected_fingerprint=form.cleaned_data["fingerprint"],
                )
        except ValidationError as changed:  # CompositeChanged, or the store refused
            form.add_error(None, changed)
            composite = get_object_or_404(composites, pk=pk)  # as the refusal found it
            status = 409
        else:
            undo_message(
                request,
                "Composite deleted; its memories are unchanged.",
                change_id=change.change_id,
            )
            return redirect("composites:index")
    # The page shows the composite as it is now, so its form carries that version, whatever
    # the refused post carried.
    carry(form, "fingerprint", composite_fingerprint(composite))
    context = {
        "composite": composite,
        "form": form,
        "member_count": composite.members.count(),
        "snapshot_count": composite.reference_sets.count(),
    }
    return render(request, "composites/delete.html", context, status=status)
