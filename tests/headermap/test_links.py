"""The map's links, followed: each lands on the place it names, a category with `&#+` included.

A store may hold any category name; the map lists the memories no header reaches by
category, so the name travels in `?unreached=` and must come back exactly.
"""

import pytest
from django.urls import reverse
from django.utils.text import slugify

from memadmin.headermap import views
from memadmin.memories.models import Memory
from tests.html_tree import attribute, find, find_all, links
from tests.links import asked

pytestmark = pytest.mark.django_db

MAP = reverse("headermap:index")
AWKWARD = "R&D #2 + 50% é 東京"
ANCHOR = f"map-unreached-{slugify(AWKWARD)}"
LABEL = f"Pages of {AWKWARD} memories no header reaches"


@pytest.fixture
def awkward_map(project, make_roots, make_loose, monkeypatch):
    """Three top headers (two a page) and five memories no header reaches, of AWKWARD."""
    monkeypatch.setattr(views, "ROOTS_PER_PAGE", 2)
    monkeypatch.setattr(views, "UNREACHED_PER_PAGE", 2)
    roots = make_roots(3)
    loose = make_loose(5)
    Memory.objects.filter(pk__in=[m.pk for m in loose]).update(category=AWKWARD)  # as a sync would
    return roots


def test_a_category_row_lands_on_its_list_with_and_without_htmx(client_as, project, awkward_map):
    """The row's hx-get gives its list; without htmx it and the Show link give the page with it."""
    client = client_as("viewer")
    page = client.get(MAP, {"project": project.pk, "page": 2}).content.decode()
    row = find(page, "details", id=ANCHOR)
    wanted = {"project": [str(project.pk)], "page": ["2"], "unreached": [AWKWARD]}

    fragment = client.get(attribute(row, "hx-get"), HTTP_HX_REQUEST="true")
    assert asked(fragment) == wanted
    assert "Loose 000." in fragment.content.decode() and "<html" not in fragment.content.decode()

    redirected = client.get(attribute(row, "hx-get"))
    assert redirected.status_code == 302 and redirected.url.endswith(f"#{ANCHOR}")
    (show,) = [href for text, href in links(row) if text.startswith("Show")]
    assert show.endswith(f"#{ANCHOR}")
    for address in (redirected.url, show):
        shown = client.get(address)
        assert asked(shown) == wanted
        body = shown.content.decode()
        assert "Root 002." in body and "Loose 000." in body and "Loose 002." not in body
        assert attribute(find(body, "details", id=ANCHOR), "open") is None  # present: open


def test_the_lists_page_links_and_memory_list_link_keep_the_category(
    client_as, project, awkward_map
):
    """Next (page and fragment) shows the next memories; the list link filters by the category."""
    client = client_as("viewer")
    query = {"project": project.pk, "page": 2, "unreached": AWKWARD}
    body = client.get(MAP, query).content.decode()
    (next_link,) = [
        a
        for a in find_all(find(body, "nav", aria_label=LABEL), "a")
        if a.attributes["rel"] == "next"
    ]
    wanted = {
        "project": [str(project.pk)],
        "page": ["2"],
        "unreached": [AWKWARD],
        "unreached_page": ["2"],
    }
    page = client.get(attribute(next_link, "href"))
    assert asked(page) == wanted
    assert "Loose 002." in page.content.decode() and "Loose 000." not in page.content.decode()
    fragment = client.get(attribute(next_link, "hx-get"), HTTP_HX_REQUEST="true")
    assert asked(fragment) == wanted
    assert "Loose 002." in fragment.content.decode()

    (listing,) = [href for text, href in links(body) if text.startswith("Every R&D")]
    memory_list = client.get(listing)
    assert asked(memory_list) == {"project": [str(project.pk)], "category": [AWKWARD]}
    assert memory_list.context["form"].cleaned_data["category"] == AWKWARD
    assert memory_list.context["table"].paginator.count == 5


def test_a_nodes_links_keep_the_page_and_the_category_shown(client_as, project, awkward_map):
    """A closed node's details (htmx or not) and its Show link keep the page and the category."""
    root = awkward_map[2]
    client = client_as("viewer")
    query = {"project": project.pk, "page": 2, "unreached": AWKWARD, "unreached_page": 2}
    body = client.get(MAP, query).content.decode()
    node = find(body, "li", id=f"map-node-{root.pk}")
    details = attribute(find(node, "details"), "hx-get")
    kept = {"page": ["2"], "unreached": [AWKWARD], "unreached_page": ["2"]}

    fragment = client.get(details, HTTP_HX_REQUEST="true")
    assert asked(fragment) == {"project": [str(project.pk)], "path": [str(root.pk)], **kept}
    assert "Detail of root 002." in fragment.content.decode()

    redirected = client.get(details)
    assert redirected.status_code == 302
    (show,) = [href for text, href in links(node) if text.startswith("Show its")]
    for address in (redirected.url, show):
        assert address.endswith(f"#map-node-{root.pk}")
        opened = client.get(address)
        assert asked(opened) == {"project": [str(project.pk)], "open": [str(root.pk)]} | kept
        page = opened.content.decode()
        assert "Detail of root 002." in page and "Loose 002." in page
