"""The picker, followed from a page: typing asks for matches, a match's button sets the field.

Each step's address is the one the page (or the previous answer) holds, with what htmx adds:
the widget's `hx-vals` and what is typed (`hx-include`).
"""

import json
from urllib.parse import urlsplit

import pytest
from django.http import QueryDict

from memadmin.composites.services import composite_create
from memadmin.memories.services import memory_create
from tests.html_tree import attribute, find, find_all
from tests.links import asked

pytestmark = pytest.mark.django_db


def typed_into(address: str, **sent) -> tuple[str, dict]:
    """Return the path of `address` and its query with `sent` added, as htmx sends them."""
    parts = urlsplit(address)
    query = QueryDict(parts.query, mutable=True)
    for key, value in sent.items():
        query[key] = value
    return parts.path, dict(query.lists())


def test_choosing_a_match_gives_the_picker_back_with_the_choice_appended(project, client_as):
    """The members picker of a composite keeps its field, mode, id and project through a choice."""
    head, kept, wanted = (
        memory_create(project=project, category="OPS_RULES", content=text, actor="agent")
        for text in ("Release SOP.", "Tag the build.", "Deploy on Fridays & weekends #2.")
    )
    composite = composite_create(head=head, type="sequence", actor="agent")
    client = client_as("editor")
    page = client.get(f"/composites/{composite.pk}/").content.decode()
    (field,) = [
        element
        for element in find_all(page, "input", hx_get="/memories/pick/")
        if json.loads(attribute(element, "hx-vals"))["mode"] == "append"
    ]
    name = attribute(field, "name")
    vals = json.loads(attribute(field, "hx-vals"))
    typed = f"#{kept.pk}, Fridays & week"

    path, query = typed_into(attribute(field, "hx-get"), **vals, **{name: typed})
    results = client.get(path, query)
    (button,) = find_all(results.content.decode(), "button", class_="picker-choice")
    assert wanted.content[:20] in button.children[0]

    path, query = typed_into(attribute(button, "hx-get"), **{name: typed})
    chosen = client.get(path, query)
    assert asked(chosen) == {
        **{key: [str(value)] for key, value in vals.items()},
        "choose": [f"#{wanted.pk}"],
        name: [typed],
    }
    picker = find(chosen.content.decode(), "input", name=name)
    assert attribute(picker, "value") == f"#{kept.pk}, #{wanted.pk}, "
    assert attribute(picker, "id") == attribute(field, "id")
    assert json.loads(attribute(picker, "hx-vals")) == vals
