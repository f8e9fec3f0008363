"""The one pager: its links, their addresses (through a QueryDict), and the include drawing it."""

import pytest
from django.core.paginator import Paginator
from django.http import QueryDict
from django.template.loader import render_to_string
from django.test.html import parse_html
from pytest_django.asserts import assertContains, assertInHTML, assertNotContains

from memadmin.composites.services import composite_create
from memadmin.memories.services import memory_create, memory_update
from memadmin.web.pagination import PageLink, pager, query_pages


def _page(number: int, pages: int = 5):
    return Paginator(range(pages * 10), 10).page(number)


def _numbered(number: int) -> str:
    return f"/list/?page={number}"


def test_one_page_has_no_pager():
    assert pager(Paginator(range(3), 10).page(1), _numbered) is None
    assert pager(None, _numbered) is None


def test_a_middle_page_links_both_neighbours_and_the_ends():
    links = pager(_page(3), _numbered, ends=True).links
    assert links == (
        PageLink("First", url="/list/?page=1"),
        PageLink("Previous", url="/list/?page=2", rel="prev"),
        PageLink("Page 3 of 5", current=True),
        PageLink("Next", url="/list/?page=4", rel="next"),
        PageLink("Last", url="/list/?page=5"),
    )


def test_the_first_and_last_pages_have_no_link_past_them():
    first = pager(_page(1), _numbered, ends=True, previous="Newer", next="Older").links
    assert [link.text for link in first] == ["Page 1 of 5", "Older", "Last"]
    last = pager(_page(5), _numbered, ends=True, previous="Newer", next="Older").links
    assert [link.text for link in last] == ["First", "Newer", "Page 5 of 5"]


def test_numbered_pages_mark_the_current_one_and_the_gaps():
    links = pager(_page(10, pages=20), _numbered, numbers=True).links
    texts = [link.text for link in links]
    assert texts == ["Previous", "1", "…", "7", "8", "9", "10", "11", "12", "13", "…", "20", "Next"]
    assert [link.text for link in links if link.current] == ["10"]
    assert [link.text for link in links if link.is_gap] == ["…", "…"]
    assert all(
        link.url == _numbered(int(link.text))
        for link in links[1:-1]
        if link.text.isdigit() and not link.current
    )


def test_page_addresses_keep_every_other_parameter_and_put_the_page_last():
    url = query_pages(QueryDict("page=4&q=deploy+notes&open=3&open=7"), "/memories/")
    assert url(2) == "/memories/?q=deploy+notes&open=3&open=7&page=2"
    assert url(1) == "/memories/?q=deploy+notes&open=3&open=7&page=1"
    # Characters that mean something in a query are escaped, not spliced.
    assert query_pages(QueryDict("q=a%26page%3D9"), "/x/")(3) == "/x/?q=a%26page%3D9&page=3"
    assert query_pages(QueryDict(), "/x/", field="p", anchor="top")(2) == "/x/?p=2#top"


def _drawn(page_pager) -> str:
    return render_to_string("includes/pagination.html", {"pager": page_pager})


def test_the_include_draws_plain_links_without_a_target():
    html = _drawn(pager(_page(2), _numbered, label="Pages of the log"))
    assertInHTML(
        """<nav aria-label="Pages of the log"><ul class="pagination">
          <li><a href="/list/?page=1" rel="prev">Previous</a></li>
          <li class="active"><span aria-current="page">Page 2 of 5</span></li>
          <li><a href="/list/?page=3" rel="next">Next</a></li>
        </ul></nav>""",
        html,
    )
    assert "hx-" not in html


def test_the_include_adds_htmx_swaps_with_the_fragment_address():
    html = _drawn(
        pager(
            _page(1),
            _numbered,
            fragment=lambda n: f"/fragment/?page={n}",
            target="closest .list",
            swap="innerHTML",
            push_url=False,
        )
    )
    assertInHTML(
        '<li><a href="/list/?page=2" rel="next" hx-get="/fragment/?page=2"'
        ' hx-target="closest .list" hx-swap="innerHTML">Next</a></li>',
        html,
    )
    pushed = _drawn(pager(_page(1), _numbered, target="#queue"))
    assertInHTML(
        '<li><a href="/list/?page=2" rel="next" hx-get="/list/?page=2" hx-target="#queue"'
        ' hx-swap="outerHTML" hx-push-url="true">Next</a></li>',
        pushed,
    )


def test_the_include_draws_nothing_for_one_page():
    assert parse_html(_drawn(None)).children == []


# --- the pages that draw it: each link keeps the page's query and swaps as the page did


@pytest.fixture
def stale_heads(project):
    """Three headers whose detail changed after their composite was made (three stale)."""
    heads = []
    for n in range(3):
        head = memory_create(
            project=project, category="OPS_RULES", content=f"Head {n}.", actor="agent"
        )
        detail = memory_create(
            project=project, category="OPS_RULES", content=f"Detail {n}.", actor="agent"
        )
        composite_create(head=head, type="theme", members=[detail], actor="agent")
        memory_update(memory=detail, actor="agent", content=f"Detail {n}, changed.")
        heads.append(head)
    return heads


@pytest.mark.django_db
def test_the_log_pages_newer_and_older_keeping_its_filters(client_as, project, monkeypatch):
    monkeypatch.setattr("memadmin.history.views.PAGE_SIZE", 2)
    for n in range(5):
        memory_create(project=project, category="OPS_RULES", content=f"Note {n}.", actor="agent")
    client = client_as("viewer")
    query = f"project={project.pk}&category=OPS_RULES"
    first = client.get(f"/history/?{query}")
    assertContains(
        first, f'<li><a href="/history/?{query}&amp;page=2" rel="next">Older</a></li>', html=True
    )
    assertNotContains(first, "Newer")
    second = client.get(f"/history/?{query}&page=2")
    assertContains(
        second, f'<li><a href="/history/?{query}&amp;page=1" rel="prev">Newer</a></li>', html=True
    )
    assertContains(
        second, '<li class="active"><span aria-current="page">Page 2 of 3</span></li>', html=True
    )


@pytest.mark.django_db
def test_the_memory_list_numbers_its_pages_keeping_sort_and_size(client_as, project):
    for n in range(3):
        memory_create(project=project, category="OPS_RULES", content=f"Note {n}.", actor="agent")
    response = client_as("viewer").get("/memories/?per_page=1&sort=content&page=2")
    assertContains(
        response,
        """<nav aria-label="Pages of memories"><ul class="pagination">
          <li><a href="/memories/?per_page=1&amp;sort=content&amp;page=1" rel="prev">Previous</a></li>
          <li><a href="/memories/?per_page=1&amp;sort=content&amp;page=1">1</a></li>
          <li class="active"><span aria-current="page">2</span></li>
          <li><a href="/memories/?per_page=1&amp;sort=content&amp;page=3">3</a></li>
          <li><a href="/memories/?per_page=1&amp;sort=content&amp;page=3" rel="next">Next</a></li>
        </ul></nav>""",
        html=True,
    )


@pytest.mark.django_db
def test_the_composite_list_pages_with_plain_links(client_as, stale_heads, monkeypatch):
    monkeypatch.setattr("memadmin.composites.views.PAGE_SIZE", 2)
    response = client_as("viewer").get("/composites/?type=theme")
    assertContains(
        response,
        """<nav aria-label="Pages of composites"><ul class="pagination">
          <li class="active"><span aria-current="page">Page 1 of 2</span></li>
          <li><a href="/composites/?type=theme&amp;page=2" rel="next">Next</a></li>
        </ul></nav>""",
        html=True,
    )


@pytest.mark.django_db
def test_the_stale_queue_pages_swap_the_queue(client_as, project, stale_heads, monkeypatch):
    monkeypatch.setattr("memadmin.headermap.stale_views.STALE_PER_PAGE", 2)
    response = client_as("viewer").get(f"/map/stale/?project={project.pk}")
    address = f"/map/stale/?project={project.pk}&amp;page=2"
    assertContains(
        response,
        f'<li><a href="{address}" rel="next" hx-get="{address}" hx-target="#stale-queue"'
        ' hx-swap="outerHTML" hx-push-url="true">Next</a></li>',
        html=True,
    )


@pytest.mark.django_db
def test_a_refused_mark_synced_shows_the_queue_paging_to_the_queue(
    client_as, stale_heads, monkeypatch
):
    """Without JavaScript the refusal is drawn at the form's address; its page links are not."""
    monkeypatch.setattr("memadmin.headermap.stale_views.STALE_PER_PAGE", 2)
    response = client_as("editor").post(f"/map/stale/{stale_heads[0].pk}/synced/")
    assert response.status_code == 409
    assertContains(
        response,
        '<li><a href="/map/stale/?page=2" rel="next" hx-get="/map/stale/?page=2"'
        ' hx-target="#stale-queue" hx-swap="outerHTML" hx-push-url="true">Next</a></li>',
        html=True,
        status_code=409,
    )
