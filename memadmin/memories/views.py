"""Pages for memories: the list (with its table as an htmx fragment), detail, create and edit."""

from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.http import HttpResponseClientRedirect
from django_tables2 import RequestConfig

from memadmin.accounts.roles import has_role, role_required
from memadmin.audit.context import acting
from memadmin.audit.undo_messages import undo_message
from memadmin.core.numbers import parse_id
from memadmin.projects.models import Project
from memadmin.projects.store import StoreDuplicate, StoreRowChanged, store_backend
from memadmin.web.hidden_fields import carry
from memadmin.web.htmx_request import HtmxHttpRequest, partial_or_page

from . import selectors
from .bulk_forms import BulkForm, category_choices
from .bulk_offers import actions_allowed, restore_withheld
from .forms import MemoryFilterForm, MemoryForm, ProjectSwitchForm
from .models import Memory
from .search import uses_index
from .services import DuplicateMemory, StaleEdit, memory_update
from .services import memory_create as create_memory
from .tables import MemoryTable, without_unknown_sort

PAGE_SIZE = 25


@require_GET
@role_required("viewer")
def memory_list(request: HtmxHttpRequest) -> HttpResponse:
    """Show the memory list; an htmx request gets only the table section."""
    form = MemoryFilterForm(request.GET or None)
    filters = form.selector_filters()
    memories = selectors.memory_list(**filters)
    # Only editors get the selection column and the bulk actions it feeds.
    can_edit = has_role(request.user, "editor")
    # A text search comes best match first, unless a column is sorted (`?sort=`).
    ranked = uses_index(filters["text"])
    table = MemoryTable(
        memories, exclude=() if can_edit else ("select",), order_by=() if ranked else None
    )
    request.GET = without_unknown_sort(request.GET, table)
    RequestConfig(request, paginate={"per_page": PAGE_SIZE}).configure(table)
    template_name = partial_or_page(request, "memories/list.html", "table-section")
    context = {"form": form, "table": table, "category_names": selectors.category_names_known()}
    if can_edit:
        # A move offers only categories every row of the list could take.
        categories = category_choices(filters["project"], common=filters["project"] is None)
        # Only the actions some row of this page allows; with htmx, the selection narrows them.
        rows = [row.record for row in table.paginated_rows]
        actions = actions_allowed(rows, chosen=False, can_move=bool(categories))
        context["bulk_offered"] = actions
        # Restore missing from the menu is said, not silently dropped (the page's rows).
        context["bulk_withheld"] = restore_withheld(rows)
        context["bulk_form"] = BulkForm(
            initial={"next": request.get_full_path(), "shown": [row.pk for row in rows]},
            project=filters.get("project"),
            categories=categories,
            actions=actions,
        )
    return render(request, template_name, context)


@require_GET
@role_required("viewer")
def memory_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Show one memory: every field, its lineage and its history."""
    try:
        memory = selectors.memory_detail(pk)
    except Memory.DoesNotExist as missing:
        raise Http404("No such memory.") from missing
    restorable = memory.status == Memory.Status.ARCHIVED and not memory.superseded_by_id
    return render(
        request,
        "memories/detail.html",
        {
            "memory": memory,
            # Restore goes through the bulk review of this one row, then back to this page.
            "restore_form": BulkForm(
                initial={
                    "ids": [memory.pk],
                    "action": "restore",
                    "next": reverse("memories:detail", args=[memory.pk]),
                },
                categories=[],
                auto_id=False,
            )
            if restorable
            else None,
            "merged_sources": Memory.objects.filter(pk__in=memory.merged_from or [])
            .only("id", "upstream_id", "content", "category")
            .order_by("pk"),
        },
    )


@require_http_methods(["GET", "POST"])
@role_required("editor")
def memory_create(request: HtmxHttpRequest) -> HttpResponse:
    """Create a memory in a project; an exact duplicate is refused with a link to it."""
    project = _project_from(request)
    form = MemoryForm(request.POST or None, project=project)
    duplicate = None
    if request.method == "POST" and form.is_valid():
        try:
            memory = create_memory(
                project=project,
                actor=request.user,
                reason=form.cleaned_data["reason"],
                **form.service_fields(),
            )
        except (DuplicateMemory, StoreDuplicate) as error:
            duplicate = error.existing
            form.add_error(None, error)
        except ValidationError as error:
            # A refusal of the store (busy, read-only) keeps the typed text in the form.
            form.add_error(None, error)
        else:
            return redirect("memories:detail", pk=memory.pk)
    return render(
        request,
        "memories/form.html",
        {
            "form": form,
            "project": project,
            "duplicate": duplicate,
            "project_form": _project_pick(project),
        },
        status=400 if form.errors else 200,
    )


@require_http_methods(["GET", "POST"])
@role_required("editor")
def memory_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Edit a memory; a save over someone else's newer save is refused, both texts shown."""
    memory = get_object_or_404(Memory.objects.select_related("project"), pk=pk)
    initial = {
        name: getattr(memory, name)
        for name in ("content", "category", "importance", "scope", "shareable", "status")
    }
    initial["expected_updated_at"] = memory.updated_at
    initial["expected_revision"] = store_backend().memory_revision(memory)
    form = MemoryForm(request.POST or None, initial=initial, project=memory.project)
    context = {"form": form, "memory": memory, "project": memory.project}
    if request.method == "POST" and form.is_valid():
        expected = form.cleaned_data["expected_updated_at"]
        try:
            if expected is None:
                raise StaleEdit(memory, unseen=True)
            with acting(actor=request.user, reason=form.cleaned_data["reason"]) as change:
                updated = memory_update(
                    memory=memory,
                    actor=request.user,
                    reason=form.cleaned_data["reason"],
                    expected_updated_at=expected,
                    expected_revision=form.cleaned_data["expected_revision"],
                    **form.service_fields(),
                )
        except StaleEdit as error:
            context["conflict"] = error.current
            context["conflict_message"] = error.message
            # Saving again is over their version, the one now shown beside the typed text.
            carry(form, "expected_updated_at", error.current.updated_at)
        except StoreRowChanged as error:
            context["store_version"] = error.store
            # Saving again is over the store's row now shown, its revision included.
            carry(form, "expected_revision", (error.store or {}).get("revision"))
            form.add_error(None, error)
        except (DuplicateMemory, StoreDuplicate) as error:
            context["duplicate"] = error.existing
            form.add_error(None, error)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            if updated.updated_at != initial["expected_updated_at"]:
                undo_message(request, f"Saved #{memory.display_id}.", change_id=change.change_id)
            if request.htmx:
                return HttpResponseClientRedirect(reverse("memories:detail", args=[memory.pk]))
            return redirect("memories:detail", pk=memory.pk)
    status = 409 if "conflict" in context else 400 if form.errors else 200
    return render(request, "memories/form.html", context, status=status)


def _project_pick(project: Project) -> ProjectSwitchForm | None:
    """Return the form switching the new memory's project ("pick-project"), if there is a choice."""
    if not selectors.project_list()[1:2].exists():
        return None
    return ProjectSwitchForm(initial={"project": project.pk})


def _project_from(request) -> Project:
    identity = request.GET.get("project") or request.POST.get("project")
    projects = Project.objects.select_related("pack")
    if identity:
        if "\x00" in identity:  # no identity holds one, and PostgreSQL refuses it in a query
            raise Http404("No such project.")
        pk = parse_id(identity)
        try:
            return projects.get(pk=pk) if pk is not None else projects.get(identity=identity)
        except Project.DoesNotExist as missing:
            raise Http404("No such project.") from missing
    project = projects.order_by("name").first()
    if project is None:
        raise Http404("There is no project yet: sync a store or run `manage.py demo`.")
    return project
