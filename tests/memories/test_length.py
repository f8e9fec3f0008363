"""The memory list by length: a Length column to sort by, a minimum length to filter by."""

import warnings
from urllib.parse import urljoin

import pytest
from django.urls import reverse

from memadmin.memories.services import memory_create
from tests.html_tree import find, find_all, links, text
from tests.links import asked, href

pytestmark = pytest.mark.django_db


@pytest.fixture
def sized(project):
    """Memories of 10, 300, 50, 290 and 600 characters, written in that order."""
    return [
        memory_create(
            project=project,
            category="OPS_RULES",
            content=f"{n:03d} " + "x" * (size - 4),
            actor="agent",
        )
        for n, size in enumerate((10, 300, 50, 290, 600))
    ]


def lengths(response) -> list[int]:
    return [row.record.characters for row in response.context["table"].paginated_rows]


def test_the_list_sorts_by_length_both_ways(client_as, sized):
    """?sort=-length puts the longest first; ?sort=length the shortest; each row shows it."""
    client = client_as("viewer")
    longest = client.get(reverse("memories:list"), {"sort": "-length"})
    assert lengths(longest) == [600, 300, 290, 50, 10]
    cells = find_all(longest.content.decode(), "td", data_label="Length")
    assert [text(cell) for cell in cells] == ["600", "300", "290", "50", "10"]
    assert lengths(client.get(reverse("memories:list"), {"sort": "length"})) == [
        10,
        50,
        290,
        300,
        600,
    ]


@pytest.mark.parametrize("sort", ["1.5", "length,nothing", "-content.x", "²"])
def test_a_sort_by_no_column_lists_in_the_default_order(client_as, sized, sort):
    """A `sort` naming no sortable column is dropped, never handed to django-tables2 (which
    would read `1.5` as a dotted path, a use it deprecates)."""
    client = client_as("viewer")
    default = lengths(client.get(reverse("memories:list")))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        response = client.get(reverse("memories:list"), {"sort": sort})
    assert response.status_code == 200
    assert lengths(response) == default


def test_the_length_header_is_a_sort_link_that_keeps_the_filters(client_as, project, sized):
    """Without JavaScript, the column's header is a link sorting by length, filters kept."""
    client = client_as("viewer")
    html = client.get(reverse("memories:list"), {"project": project.pk}).content.decode()
    header = find(html, "th", class_="orderable num")
    ((label, url),) = links(header)
    assert label == "Length"
    response = client.get(urljoin(reverse("memories:list"), url))
    assert asked(response) == {"project": [str(project.pk)], "sort": ["length"]}
    assert lengths(response) == [10, 50, 290, 300, 600]


def test_a_minimum_length_keeps_the_long_memories(client_as, sized):
    """min_length=280 keeps the memories of 280 characters or more."""
    response = client_as("viewer").get(
        reverse("memories:list"), {"min_length": "280", "sort": "-length"}
    )
    assert lengths(response) == [600, 300, 290]
    assert response.context["form"]["min_length"].value() == "280"


@pytest.mark.parametrize("bad", ["-5", "0", "long", "1e3", "9" * 30])
def test_a_bad_minimum_length_is_said_and_filters_nothing(client_as, sized, bad):
    """A length that is not a whole number of 1 or more shows an error, not a 500."""
    response = client_as("viewer").get(reverse("memories:list"), {"min_length": bad})
    assert response.status_code == 200
    assert response.context["form"].errors["min_length"]
    assert len(lengths(response)) == 5


def test_the_sort_by_length_is_kept_from_page_to_page(client_as, sized):
    """Page 2 of the longest-first list goes on where page 1 stopped."""
    client = client_as("viewer")
    query = {"sort": "-length", "per_page": 2}
    first = client.get(reverse("memories:list"), query)
    assert lengths(first) == [600, 300]
    pager = find(first.content.decode(), "nav", aria_label="Pages of memories")
    second = client.get(href(pager, "2"))
    assert asked(second) == {"sort": ["-length"], "per_page": ["2"], "page": ["2"]}
    assert lengths(second) == [290, 50]


def test_the_structure_page_links_to_the_long_memories_longest_first(client_as, project, sized):
    client = client_as("viewer")
    html = client.get(f"/structure/{project.pk}/").content.decode()
    (url,) = [url for label, url in links(html) if label.startswith("Every memory of 280+")]
    assert lengths(client.get(url)) == [600, 300, 290]
