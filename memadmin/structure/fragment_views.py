"""The fragmentation page: preview a split of a long memory, adjust it, and apply it.

Every preview carries the version of the text it split (`expected_updated_at`, the memory's
`updated_at`). Applying splits that version only: a memory changed since, or an apply that
names no version, splits nothing and the page comes back (409) previewing the text as it is.
"""

from dataclasses import dataclass, field

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from memadmin.accounts.roles import role_required
from memadmin.core.fragments import Fragment, SplitError, proposed_summary, title_heading_end
from memadmin.core.tokens import TokenCounter
from memadmin.ledger.counters import choose_counter
from memadmin.memories.models import Memory
from memadmin.web.htmx_request import HtmxHttpRequest, wants_fragment

from .fragment_forms import BoundaryFormSet, FragmentForm, PreviewStateForm, SplitForm
from .fragment_lines import (
    adjusted_lines,
    fragments_at,
    line_of,
    line_starts,
    offsets_of,
    proposed_lines,
)
from .fragment_services import PreviewOutdated, memory_fragment

MAP_COUNTER = "heuristic"  # what the header map sizes memories with
CORRECT_THE_LINES = (
    "Correct the lines marked below: nothing is previewed, or split, until every one is a line "
    "of the text."
)


@dataclass
class Split:
    """The split a request asks for, and the controls that show it.

    `malformed`: the rows came without their management form, or more of them (or other
    ones) than a page shows; the page shows the proposal again with the refusal, status 400.
    """

    by: str
    lines: list[int]
    boundaries: BoundaryFormSet  # the rows shown: as typed when refused, else these lines
    split_form: SplitForm
    fragments: list[Fragment] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    malformed: bool = False


def _summary(request: HtmxHttpRequest, text: str) -> str:
    """Return the header summary the request shows: as typed, else the one proposed."""
    data = request.POST if request.method == "POST" else request.GET
    return data.get("summary", "").strip() or proposed_summary(text)


def _split(request: HtmxHttpRequest, text: str) -> Split:
    """Return the split the request asks for: its mode, start lines, fragments and problems.

    With no rows given (or "propose" asked, or the mode just changed) the proposal for the
    mode is used; otherwise the rows' start lines, minus merged fragments, plus the new one.
    The mode changed when a preview's `by` differs from `by_was`, the mode the page showed:
    htmx names the fieldset, not the select, as the trigger, and a page without JavaScript
    sends no trigger at all. Applying (POST) reads the rows shown, which must come with their
    management form. A title heading the header's summary repeats stays out of fragment 1.
    """
    data = request.POST if request.method == "POST" else request.GET
    count = len(line_starts(text))
    split_form = SplitForm(data, lines=count)
    by = split_form.mode()
    typed = BoundaryFormSet(data, lines=count)
    applying = _applying(request)
    mode_changed = not applying and PreviewStateForm(data).mode_changed(by)
    asked = applying or typed.sent() or split_form.asks_for_a_new_start()
    problems: list[str] = []
    as_typed = malformed = False
    if "propose" in data or mode_changed or not asked:
        lines = proposed_lines(text, by)
    elif not (typed.is_valid() & split_form.is_valid()):  # both, so both show their errors
        malformed = bool(typed.non_form_errors())
        problems = list(typed.non_form_errors()) if malformed else [CORRECT_THE_LINES]
        as_typed = not malformed
        lines = proposed_lines(text, by) if malformed else []
    else:
        starts, merged = typed.starts()
        lines = adjusted_lines(starts, merged=merged, split_at=split_form.cleaned_data["split_at"])
        as_typed = True
    fragments: list[Fragment] = []
    if not problems:
        try:
            fragments = fragments_at(text, lines, summary=_summary(request, text))
        except SplitError as error:
            problems.append(str(error))
    if as_typed and problems:  # refused: the rows and the new line stay as they were typed
        boundaries, shown_form = typed, split_form
    else:
        boundaries = BoundaryFormSet(lines=count, starts=lines)
        shown_form = SplitForm(initial={"by": by}, lines=count)
    return Split(by, lines, boundaries, shown_form, fragments, problems, malformed)


def _applying(request: HtmxHttpRequest) -> bool:
    """Return True for the POST that applies the split (a preview posts too, to keep the
    CSRF token out of the address)."""
    return request.method == "POST" and not ({"preview", "propose"} & set(request.POST))


def _preview(fragments: list[Fragment], text: str, counter: TokenCounter) -> list[dict]:
    return [
        {
            "number": number,
            "first_line": line_of(text, fragment.start),
            "last_line": line_of(text, fragment.end - 1),
            "text": fragment.text,
            "tokens": counter.count(fragment.text),
        }
        for number, fragment in enumerate(fragments, start=1)
    ]


def _title_in_header(fragments: list[Fragment], text: str, request: HtmxHttpRequest) -> bool:
    """Return True when fragment 1 leaves out the title heading the header's summary repeats."""
    end = title_heading_end(text, _summary(request, text))
    return bool(fragments) and end is not None and fragments[0].start > end


@require_http_methods(["GET", "POST"])
@role_required("editor")
def fragment(request: HtmxHttpRequest, memory_pk: int) -> HttpResponse:
    """Preview a split of the memory (GET) or apply it (POST).

    An htmx request from the split controls gets only the split section back.
    """
    memory = get_object_or_404(Memory.objects.select_related("project"), pk=memory_pk)
    split = _split(request, memory.content)
    initial = {"header_category": memory.category, "summary": proposed_summary(memory.content)}
    if request.method == "POST":
        form = FragmentForm(request.POST, project=memory.project, initial=initial)
    else:
        form = FragmentForm(project=memory.project, initial=initial)
    outdated = False
    if _applying(request) and form.is_valid() and not split.problems:
        values = form.cleaned_data
        seen = PreviewStateForm(request.POST).version()
        try:
            if seen is None:
                raise PreviewOutdated(memory, unseen=True)
            result = memory_fragment(
                memory=memory,
                boundaries=offsets_of(memory.content, split.lines),
                composite_type=values["type"],
                summary=values["summary"],
                title=values["title"],
                header_category=values["header_category"],
                header_importance=values["header_importance"],
                reason=values["reason"],
                actor=request.user,
                expected_updated_at=seen,
            )
        except PreviewOutdated as error:
            form.add_error(None, error.messages)
            outdated = True
            memory.refresh_from_db()  # preview the text as it is now
            split = _split(request, memory.content)
        except ValidationError as error:
            form.add_error(None, error.messages)
        else:
            messages.success(
                request,
                f"#{memory.display_id} is now {len(result.details)} details under this header; "
                "the original is archived and linked below.",
            )
            return redirect("memories:detail", pk=result.header.pk)
    refused = split.malformed or (_applying(request) and (form.errors or split.problems))
    if request.method == "POST" and not _applying(request):
        form = FragmentForm(request.POST, project=memory.project, initial=initial)
        form.errors.clear()  # a preview judges the split only, not the header still being written
    # The map's counter (the plugin's fallback), so a text has one size on both pages.
    counter = choose_counter(MAP_COUNTER)
    context = {
        "memory": memory,
        "form": form,
        "split": split,
        "counter": counter,
        "preview": _preview(split.fragments, memory.content, counter.counter),
        "previewed": PreviewStateForm(
            initial={"by_was": split.by, "expected_updated_at": memory.updated_at}
        ),
        "text_lines": memory.content.split("\n"),
        "title_in_header": _title_in_header(split.fragments, memory.content, request),
        "archived": memory.status == Memory.Status.ARCHIVED,
    }
    template_name = "structure/fragment.html"
    if request.method == "GET" and wants_fragment(request):
        template_name += "#split-section"
    status = 409 if outdated else 400 if refused else 200
    return render(request, template_name, context, status=status)
