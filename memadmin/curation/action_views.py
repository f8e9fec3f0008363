"""The actions curation pages offer: archive one of a pair, group memories in a composite.

Merging goes to the memories' own merge review page. Archiving and grouping are always
confirmed: the pair or suggestion links to a page that shows what would happen (the two
texts' word diff and how they relate; the composite to be made) and acts only on that
page's POST. An archive carries the version of the memory its page showed: a post without
one, or from an older one, is refused (409) and nothing is written.
"""

from collections import Counter

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from memadmin.accounts.roles import role_required
from memadmin.composites.models import Composite
from memadmin.core.rewording import RELATION_LABELS, compare
from memadmin.core.worddiff import word_diff
from memadmin.memories.models import Memory
from memadmin.memories.revision_fields import revisions_text
from memadmin.memories.selectors import memories_version
from memadmin.projects.models import Project
from memadmin.projects.store import StoreRowChanged
from memadmin.web.hidden_fields import carry
from memadmin.web.htmx_request import HtmxHttpRequest

from .forms import NEW_HEAD, ArchiveForm, GroupForm
from .selectors import header_text, proposed_head
from .services import StaleArchive, StaleGroup, duplicate_archive, group_composite_create


def _messages_of(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [message for items in error.message_dict.values() for message in items]
    return list(error.messages)


def _kept(memory: Memory, raw: str | int | None) -> Memory | None:
    """Return the live memory of the same project named to be kept, None if there is none."""
    pk = int(raw) if str(raw or "").isdigit() else None
    if pk is None or pk == memory.pk:
        return None
    return (
        Memory.objects.filter(pk=pk, project=memory.project)
        .exclude(status=Memory.Status.ARCHIVED)
        .first()
    )


@require_http_methods(["GET", "POST"])
@role_required("editor")
def archive(request: HtmxHttpRequest, memory_pk: int) -> HttpResponse:
    """Show one memory of a pair beside the one kept, their word diff (GET); archive it (POST).

    The POST needs a reason and the version the page showed; a stale or unnamed version is
    refused with 409, the memory shown as it is now and its version carried for a new try.
    """
    memory = get_object_or_404(Memory.objects.select_related("project"), pk=memory_pk)
    fallback = reverse("curation:duplicates", args=[memory.project_id])
    source = request.POST if request.method == "POST" else request.GET
    keep = _kept(memory, source.get("keep"))
    if keep is None:
        messages.error(request, "Say which memory of the pair is kept: nothing was archived.")
        return redirect(fallback)
    initial = {"keep": keep.pk, "expected_updated_at": memory.updated_at}
    initial["store_revisions"] = revisions_text([memory])
    initial |= {"next": request.GET.get("next", ""), "kind": request.GET.get("kind", "")}
    form = ArchiveForm(request.POST if request.method == "POST" else None, initial=initial)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            duplicate_archive(
                memory=memory,
                keep=keep,
                actor=request.user,
                reason=form.cleaned_data["reason"],
                expected_updated_at=form.cleaned_data["expected_updated_at"],
                expected_revisions=form.cleaned_data["store_revisions"],
            )
        except StaleArchive as error:
            memory = error.current
            form.add_error(None, error)
            # Archiving again is over the version now shown, a deliberate second look.
            carry(form, "expected_updated_at", memory.updated_at)
            status = 409
        except StoreRowChanged as error:
            # The agent revised the row since the page read it: archiving again is over it.
            form.add_error(None, error)
            carry(form, "store_revisions", revisions_text([memory]))
            status = 409
        except ValidationError as error:
            for message in _messages_of(error):
                form.add_error(None, message)
        else:
            messages.success(request, f"Archived #{memory.display_id}, kept #{keep.display_id}.")
            return redirect(form.cleaned_data["next"] or fallback)
    if form.errors and status == 200:
        status = 400
    found_by = (form.cleaned_data.get("kind") if form.is_bound else None) or initial["kind"]
    comparison = compare(keep.content, memory.content, same_meaning=found_by == "embedding")
    context = {
        "project": memory.project,
        "memory": memory,
        "keep": keep,
        "form": form,
        "diff": word_diff(keep.content, memory.content),
        "comparison": comparison,
        "relation": RELATION_LABELS[comparison.relation],
        "mergeable": comparison.is_rewording and keep.category == memory.category,
        "merge_query": {"ids": [keep.pk, memory.pk]},
        "fallback": fallback,
    }
    return render(request, "curation/archive.html", context, status=status)


def _group_memories(project: Project, raw_ids: list[str]) -> list[Memory]:
    ids = [int(value) for value in raw_ids if value.isdigit()]
    found = Memory.objects.filter(project=project, pk__in=ids).exclude(
        status=Memory.Status.ARCHIVED
    )
    return sorted(found, key=lambda m: ids.index(m.pk))


@require_http_methods(["GET", "POST"])
@role_required("editor")
def group(request: HtmxHttpRequest, project_pk: int):
    """Show the composite a group of memories would become (GET); make it (POST)."""
    project = get_object_or_404(Project.objects.select_related("pack"), pk=project_pk)
    source = request.POST if request.method == "POST" else request.GET
    memories = _group_memories(project, source.getlist("ids"))
    if len(memories) < 2:
        messages.error(request, "A group needs at least two live memories of the project.")
        return redirect("curation:suggestions", project_pk=project.pk)
    text, words = header_text(memories)
    head = proposed_head(memories)
    kind = source.get("type", Composite.Type.THEME)
    initial = {
        "ids": [m.pk for m in memories],
        "type": kind,
        "head": str(head.pk),
        "header_text": text,
        "header_category": Counter(m.category for m in memories).most_common(1)[0][0],
        "title": " ".join(words[:4]).capitalize(),
        "version": memories_version(memories),
    }
    data = None
    gone = False
    if request.method == "POST":
        # A memory of the page archived since is no longer offered: the group is refused as
        # stale and shown as it is now, the rest of what was typed kept.
        data = request.POST.copy()
        gone = set(data.getlist("ids")) != {str(m.pk) for m in memories}
        data.setlist("ids", [str(m.pk) for m in memories])
    form = GroupForm(data, initial=initial, project=project, memories=memories)
    status = 200
    if gone:
        form.is_valid()
        form.add_error(None, StaleGroup(memories).message)
        carry(form, "version", memories_version(memories))
        status = 409
    elif request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        chosen = (
            None
            if data["head"] == NEW_HEAD
            else next(m for m in memories if str(m.pk) == data["head"])
        )
        try:
            if not data["version"]:
                raise StaleGroup(memories, unseen=True)
            composite = group_composite_create(
                project=project,
                memories=memories,
                type=data["type"],
                head=chosen,
                header_text=data["header_text"],
                header_category=data["header_category"],
                title=data["title"],
                reason=data["reason"],
                actor=request.user,
                expected_version=data["version"],
            )
        except StaleGroup as stale:
            # The page again over the group as it is now; making it again is a choice.
            order = [m.pk for m in memories]
            memories = sorted(stale.memories, key=lambda m: order.index(m.pk))
            form.add_error(None, stale.message)
            carry(form, "version", memories_version(memories))
            status = 409
        except ValidationError as error:
            for message in _messages_of(error):
                form.add_error(None, message)
        else:
            messages.success(
                request, f"Made a {composite.type} composite of {len(memories)} memories."
            )
            return redirect("composites:detail", pk=composite.pk)
    return render(
        request,
        "curation/group.html",
        {"project": project, "form": form, "memories": memories, "head": head, "words": words},
        status=400 if status == 200 and form.errors else status,
    )
