"""The search-as-you-type picker: a plain text field, with suggestions fetched as you type.

Without JavaScript the field is an ordinary text input: type an id (or, for composites, a
title) and submit. With htmx, typing asks a small endpoint for at most PICK_LIMIT matches,
shown under the field as buttons; choosing one asks the endpoint for the field again, its
value set (`one`: replaced by the choice; `append`: the choice added to the ids already
typed, the search word dropped, a separator after it), focused with the caret at its end. No page ever lists the whole store in a control.
"""

import json
import re
from collections.abc import Callable

from django import forms
from django.forms.utils import flatatt
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, QueryDict
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse

PICK_LIMIT = 20
SELECT_LIMIT = 100  # the most options a page's select may list; beyond it, a picker or a number
MEMORY_HINT = "#id or a word of its text"
COMPOSITE_HINT = "#id or a word of its title"
PICK_MODES = ("one", "append")
_ID = re.compile(r"^#?(\d+)$")
APPEND_SEPARATOR = ", "  # what an append picker leaves after the id just chosen


def typed_id(text: str) -> int | None:
    """Return the id written as "12" or "#12", else None."""
    found = _ID.match(text.strip())
    return int(found.group(1)) if found else None


def search_term(text: str, mode: str) -> str:
    """Return what to search for: the whole text, or (append) what follows the last comma."""
    return text.rsplit(",", 1)[-1].strip() if mode == "append" else text.strip()


def chosen_value(text: str, choice: str, mode: str) -> str:
    """Return the field's value once `choice` is picked.

    In append mode the ids already typed are kept, a search word being typed is dropped,
    and the choice comes last (once), followed by the separator: what is typed next is a new
    search, never joined onto the id.
    """
    if mode != "append":
        return choice
    kept = [part.strip() for part in text.split(",") if typed_id(part) is not None]
    if choice not in kept:
        kept.append(choice)
    return ", ".join(kept) + APPEND_SEPARATOR


class PickerInput(forms.TextInput):
    """A text input whose typing asks `url_name` for matches (see the module docstring)."""

    template_name = "includes/picker.html"

    def __init__(self, url_name: str, *, hint: str, mode: str = "one", project: int | None = None):
        if mode not in PICK_MODES:
            raise ValueError(f"unknown picker mode {mode!r}")
        super().__init__(attrs={"autocomplete": "off", "placeholder": hint})
        self.url_name = url_name
        self.mode = mode
        self.project = project  # a project's pk to search in, or None for every project

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        widget_attrs = context["widget"]["attrs"]
        params = {"field": name, "mode": self.mode, "id": widget_attrs.get("id", "")}
        if self.project is not None:
            params["project"] = str(self.project)
        context["picker"] = {
            "url": reverse(self.url_name),
            "params": json.dumps(params),
            "attrs": flatatt(widget_attrs),
        }
        return context

    def render(self, name, value, attrs=None, renderer=None):
        # The project's template engine, so the widget and the endpoint share one template.
        return render_to_string(self.template_name, self.get_context(name, value, attrs))


def picker_request(query: QueryDict) -> dict:
    """Return what a picker request asks: field name, element id, mode, project, text.

    Raise ValueError for a field name or mode no picker sends.
    """
    name = query.get("field", "")
    mode = query.get("mode", "one")
    if not re.fullmatch(r"[a-z_]{1,40}", name) or mode not in PICK_MODES:
        raise ValueError("This is not a picker's request.")
    project = query.get("project", "")
    return {
        "field": name,
        "id": re.sub(r"[^A-Za-z0-9_-]", "", query.get("id", ""))[:60],
        "mode": mode,
        "project": int(project) if project.isdigit() else None,
        "text": query.get(name, "")[:200],
    }


Finder = Callable[[str, int | None], list[tuple[str, str]]]


def picker_response(
    request: HttpRequest, *, url_name: str, hint: str, find: Finder
) -> HttpResponse:
    """Answer a picker: its matches for what is typed, or (`?choose=`) the picker, value set.

    `find(term, project)` returns at most PICK_LIMIT (value, label) pairs.
    """
    try:
        asked = picker_request(request.GET)
    except ValueError as error:
        return HttpResponseBadRequest(str(error))
    choice = request.GET.get("choose")
    if choice is not None:
        chosen = typed_id(choice)
        if chosen is None:
            return HttpResponseBadRequest("A choice is an id such as #12.")
        widget = PickerInput(url_name, hint=hint, mode=asked["mode"], project=asked["project"])
        value = chosen_value(asked["text"], f"#{chosen}", asked["mode"])
        # The field comes back marked: picker.js puts the caret after its value and focuses
        # it as it is swapped in, so the person types on where they were.
        attrs = {"data-focus-end": True, **({"id": asked["id"]} if asked["id"] else {})}
        return HttpResponse(widget.render(asked["field"], value, attrs))
    term = search_term(asked["text"], asked["mode"])
    query = {key: asked[key] for key in ("field", "mode", "id") if asked[key]}
    if asked["project"] is not None:
        query["project"] = asked["project"]
    context = {
        "matches": find(term, asked["project"])[:PICK_LIMIT] if term else [],
        "term": term,
        "url": reverse(url_name),
        "query": query,  # each choice's address adds `choose` ({% querystring %})
    }
    return render(request, "includes/picker_results.html", context)
