"""The actions curation pages offer: archive one of a pair, group memories in a composite.

Merging goes to the memories' own merge review page. Grouping is always confirmed: the
suggestion or pair links to a page that shows the composite to be made, its head and
members, and makes it only on that page's POST.
"""

from collections import Counter

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from memadmin.accounts.roles import role_required
from memadmin.composites.models import Composite
from memadmin.htmx_request import HtmxHttpRequest
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .forms import NEW_HEAD, ArchiveForm, GroupForm
from .selectors import header_text, proposed_head
from .services import duplicate_archive, group_composite_create


def _messages_of(error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [message for items in error.message_dict.values() for message in items]
    return list(error.messages)


@require_POST
@role_required("editor")
def archive(request: HtmxHttpRequest, memory_pk: int):
    """Archive one memory of a near-duplicate pair, saying which one is kept."""
    memory = get_object_or_404(Memory.objects.select_related("project"), pk=memory_pk)
    form = ArchiveForm(request.POST)
    fallback = reverse("curation:duplicates", args=[memory.project_id])
    if not form.is_valid():
        messages.error(request, "The archive request was not understood.")
        return redirect(fallback)
    keep_pk = form.cleaned_data["keep"]
    keep = Memory.objects.filter(pk=keep_pk, project=memory.project).first() if keep_pk else None
    try:
        duplicate_archive(
            memory=memory,
            keep=keep,
            actor=request.user,
            reason=form.cleaned_data["reason"],
            expected_updated_at=form.cleaned_data["expected_updated_at"],
        )
    except ValidationError as error:
        for message in _messages_of(error):
            messages.error(request, message)
    else:
        messages.success(request, f"Archived #{memory.display_id}.")
    return redirect(form.cleaned_data["next"] or fallback)


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
    }
    form = GroupForm(
        request.POST if request.method == "POST" else None,
        initial=initial,
        project=project,
        memories=memories,
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        chosen = (
            None
            if data["head"] == NEW_HEAD
            else next(m for m in memories if str(m.pk) == data["head"])
        )
        try:
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
            )
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
        status=400 if form.errors else 200,
    )
