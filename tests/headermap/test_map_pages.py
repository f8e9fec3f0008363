"""The header map on a large project: roots a page at a time, unreached memories on demand."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memadmin.composites.services import composite_create
from memadmin.headermap import views
from memadmin.headermap.selectors import header_map, header_map_below, unreached_memories
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, links, text, top

pytestmark = pytest.mark.django_db

MAP = reverse("headermap:index")
UNREACHED = reverse("headermap:unreached")


@pytest.fixture
def small_pages(monkeypatch):
    """Two top headers and two unreached memories a page, so a few memories make pages."""
    monkeypatch.setattr(views, "ROOTS_PER_PAGE", 2)
    monkeypatch.setattr(views, "UNREACHED_PER_PAGE", 2)


def get(client, url, **query):
    return client.get(url, query)


def summary(body: str) -> list[str]:
    """Return the lines of the map's summary, as read."""
    return [text(line) for line in find_all(find(body, "ul", class_="map-summary"), "li")]


def pager_links(html: str, label: str) -> list[tuple[str, str, str | None, str | None]]:
    """Return (text, href, rel, hx-get) of each link of the pager labelled `label`."""
    nav = find(html, "nav", aria_label=label)
    return [
        (text(a), attribute(a, "href"), attribute(a, "rel"), attribute(a, "hx-get"))
        for a in find_all(nav, "a")
    ]


def current_page(html: str, label: str) -> str:
    """Return what the pager labelled `label` says of the page shown."""
    return text(find(find(html, "nav", aria_label=label), "span", aria_current="page"))


def test_roots_come_a_page_at_a_time(client_as, project, make_roots, small_pages):
    """Each page shows its own top headers; the summary still counts the whole map."""
    roots = make_roots(5)
    client = client_as("viewer")
    first = get(client, MAP, project=project.pk).content.decode()
    second = get(client, MAP, project=project.pk, page=2).content.decode()
    last = get(client, MAP, project=project.pk, page=3).content.decode()
    assert "Root 000." in first and "Root 001." in first and "Root 002." not in first
    assert "Root 001." not in second and "Root 002." in second and "Root 003." in second
    assert "Root 004." in last and "Root 003." not in last
    assert "Top headers 3\N{EN DASH}4 of 5" in second
    assert current_page(second, "Pages of top headers") == "Page 2 of 3"
    for body in (first, second, last):
        assert summary(body)[0].startswith("5 headers · ")
    assert find(find(second, "ul", class_="map-tree"), "li", id=f"map-node-{roots[2].pk}")


def test_page_links_keep_the_project_and_the_open_nodes(
    client_as, project, make_roots, small_pages
):
    """First, previous, next and last keep `project` and `open`; page 1 needs no `page`."""
    roots = make_roots(7)
    opened = roots[0].pk
    body = get(client_as("viewer"), MAP, project=project.pk, page=2, open=opened).content.decode()
    base = f"{MAP}?project={project.pk}"
    first, third, last = (
        f"{base}&open={opened}",
        f"{base}&page=3&open={opened}",
        f"{base}&page=4&open={opened}",
    )
    assert pager_links(body, "Pages of top headers") == [
        ("First", first, None, first),
        ("Previous", first, "prev", first),
        ("Next", third, "next", third),
        ("Last", last, None, last),
    ]
    nav = find(body, "nav", aria_label="Pages of top headers")
    for link in find_all(nav, "a"):
        assert attribute(link, "hx-target") == "#map-tree"
        assert attribute(link, "hx-swap") == "innerHTML show:top"
        assert attribute(link, "hx-push-url") == "true"


def test_a_node_opened_on_page_three_stays_on_page_three(
    client_as, project, make_roots, small_pages
):
    """The no-JS link of a node on page 3 reloads page 3 with it open; so does its details URL."""
    roots = make_roots(6)
    head = roots[4]
    client = client_as("viewer")
    body = get(client, MAP, project=project.pk, page=3).content.decode()
    anchor = f"map-node-{head.pk}"
    open_url = f"{MAP}?project={project.pk}&page=3&open={head.pk}"
    node = find(body, "li", id=anchor)
    assert links(find(node, "div", class_="map-details")) == [
        ("Show its 1 detail", f"{open_url}#{anchor}")
    ]
    opened = client.get(open_url).content.decode()
    assert "Detail of root 004." in opened
    assert "Root 004." in opened and "Root 000." not in opened
    details = reverse("headermap:details", args=[head.pk])
    hx_get = f"{details}?project={project.pk}&path={head.pk}&page=3"
    assert attribute(find(node, "details"), "hx-get") == hx_get
    redirect = client.get(hx_get)
    assert redirect.status_code == 302
    assert redirect.url == f"{open_url}#{anchor}"


def test_details_fetched_on_page_three_link_back_to_page_three(client_as, project, monkeypatch):
    """Details htmx fetched for a node on page 3 keep page 3 in their own no-JS links."""
    monkeypatch.setattr(views, "ROOTS_PER_PAGE", 1)

    def make(content):
        return memory_create(project=project, category="OPS_RULES", content=content, actor="agent")

    themes = []
    for n in range(3):
        theme, header, detail = make(f"Theme {n}."), make(f"Header {n}."), make(f"Leaf {n}.")
        composite_create(head=theme, type="theme", members=[header], actor="agent")
        composite_create(head=header, type="sequence", members=[detail], actor="agent")
        themes.append((theme, header))
    theme, header = themes[2]
    client = client_as("viewer")
    assert "Theme 2." in get(client, MAP, project=project.pk, page=3).content.decode()
    fragment = client.get(
        reverse("headermap:details", args=[theme.pk]),
        {"project": project.pk, "path": str(theme.pk), "page": 3},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "<html" not in fragment
    (listed,) = top(fragment)  # the node's list of details, alone
    assert (listed.name, attribute(listed, "class")) == ("ul", "map-tree")
    assert "Header 2." in text(listed)
    page_three = f"{MAP}?project={project.pk}&page=3&open={theme.pk}&open={header.pk}"
    node = find(fragment, "li", id=f"map-node-{theme.pk}-{header.pk}")
    assert links(find(node, "div", class_="map-details")) == [
        ("Show its 1 detail", f"{page_three}#map-node-{theme.pk}-{header.pk}")
    ]


@pytest.mark.parametrize("wanted", ["4", "99", "0", "abc", "-1"])
def test_a_page_past_the_last_says_so(client_as, project, make_roots, small_pages, wanted):
    """A page of roots that does not exist answers 404 with a page saying why and where to go."""
    make_roots(5)
    opened = 12345
    response = get(client_as("viewer"), MAP, project=project.pk, page=wanted, open=opened)
    body = response.content.decode()
    assert response.status_code == 404
    assert f"There is no page “{wanted}” of top headers" in body
    assert "the map has 5 top headers on 3 pages" in body
    notice = find(body, "p", class_="notice", role="alert")
    assert links(notice) == [
        ("first page", f"{MAP}?project={project.pk}&open={opened}"),
        ("last page", f"{MAP}?project={project.pk}&page=3&open={opened}"),
    ]
    assert summary(body)[0].startswith("5 headers · ")  # the summary is still there
    assert find_all(body, "nav", aria_label="Pages of top headers") == []


def test_a_map_without_headers_has_one_empty_page(client_as, project, make_loose):
    """With no header at all, page 1 says so and is not an error."""
    make_loose(2)
    response = get(client_as("viewer"), MAP, project=project.pk, page=1)
    assert response.status_code == 200
    assert "No header yet" in response.content.decode()


def test_htmx_page_links_get_the_tree_section_only(client_as, project, make_roots, small_pages):
    """An htmx request for a page of roots answers with the tree section, not the whole page."""
    make_roots(5)
    response = get(client_as("viewer"), MAP, project=project.pk, page=2)
    fragment = client_as("viewer").get(
        MAP, {"project": project.pk, "page": 2}, HTTP_HX_REQUEST="true"
    )
    body = fragment.content.decode()
    assert "<html" not in body and "map-summary" not in body
    heading = top(body)[0]  # the tree section's contents, from its heading
    assert (heading.name, attribute(heading, "id")) == ("h2", "map-tree-title")
    assert "Root 002." in body and "Root 001." not in body
    assert text(find(body, "h2", id="map-tree-title")) == "Headers"
    assert current_page(body, "Pages of top headers") == "Page 2 of 3"
    assert "Root 002." in response.content.decode()


def test_the_unreached_list_of_a_category_loads_with_and_without_htmx(
    client_as, project, make_roots, make_loose
):
    """The category URL gives the list alone to htmx, and the map page with it shown otherwise."""
    make_roots(1)
    make_loose(2)
    client = client_as("viewer")
    query = {"project": project.pk, "unreached": "ENV_STATE"}
    fragment = client.get(UNREACHED, query, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in fragment
    listed = top(fragment)[0]  # the category's list, alone
    assert listed.name == "ul" and "Loose 000." in text(listed) and "Loose 001." in text(listed)
    plain = client.get(UNREACHED, query)
    assert plain.status_code == 302
    assert plain.url == f"{MAP}?project={project.pk}&unreached=ENV_STATE#map-unreached-env_state"
    page = client.get(plain.url).content.decode()
    assert find(page, "html") and find(page, "main")
    shown = find(page, "details", id="map-unreached-env_state", open=True)
    assert "Loose 000." in text(shown) and "Root 000." in text(find(page, "section", id="map-tree"))


def test_the_summary_line_of_each_category_counts_its_memories_and_tokens(
    client_as, project, make_loose
):
    """Each category gets one line, the memories themselves wait until it is opened."""
    make_loose(3)
    make_loose(1, category="OPS_RULES")
    body = get(client_as("viewer"), MAP, project=project.pk).content.decode()
    # "Loose 000." is 10 characters: ceil(10 / 3.5) = 3 tokens each.
    lines = [text(line) for line in find_all(body, "summary") if find_all(line, "strong")]
    assert "ENV_STATE · 3 memories · 9 tokens" in lines
    assert "OPS_RULES · 1 memory · 3 tokens" in lines
    assert "Loose 000." not in body
    category = find(body, "details", id="map-unreached-env_state")
    assert attribute(category, "hx-get") == f"{UNREACHED}?project={project.pk}&unreached=ENV_STATE"
    assert attribute(category, "hx-trigger") == "toggle once"


def test_the_unreached_list_comes_a_page_at_a_time(client_as, project, make_loose, small_pages):
    """A long category list is paged, each page link with and without htmx, keeping the map page."""
    make_loose(5)
    client = client_as("viewer")
    query = {"project": project.pk, "unreached": "ENV_STATE", "unreached_page": 2, "page": 1}
    fragment = client.get(UNREACHED, query, HTTP_HX_REQUEST="true").content.decode()
    assert "Loose 001." not in fragment
    assert "Loose 002." in fragment and "Loose 003." in fragment
    label = "Pages of ENV_STATE memories no header reaches"
    assert current_page(fragment, label) == "3\N{EN DASH}4 of 5"
    base = f"?project={project.pk}&unreached=ENV_STATE"
    assert pager_links(fragment, label) == [
        # previous: page 1 of the list, named by no unreached_page
        ("Previous", f"{MAP}{base}#map-unreached-env_state", "prev", f"{UNREACHED}{base}"),
        (
            "Next",
            f"{MAP}{base}&unreached_page=3#map-unreached-env_state",
            "next",
            f"{UNREACHED}{base}&unreached_page=3",
        ),
    ]
    for link in find_all(find(fragment, "nav", aria_label=label), "a"):
        assert attribute(link, "hx-target") == "closest .map-unreached-list"
        assert attribute(link, "hx-swap") == "innerHTML"
        assert attribute(link, "hx-push-url") is None  # the map page's address stays
    listing = f"{reverse('memories:list')}?project={project.pk}&category=ENV_STATE"
    assert links(fragment)[-1] == (
        "Every ENV_STATE memory of this project in the memory list",
        listing,
    )


def test_the_unreached_list_shown_without_javascript_keeps_the_page_of_roots(
    client_as, project, make_roots, make_loose, small_pages
):
    """On page 2 of roots, a category's list shows there, and node links keep the category."""
    roots = make_roots(3)
    make_loose(3)
    query = {"project": project.pk, "page": 2, "unreached": "ENV_STATE", "unreached_page": 2}
    body = client_as("viewer").get(MAP, query).content.decode()
    assert "Root 002." in body and "Root 000." not in body
    assert "Loose 002." in body and "Loose 000." not in body
    category = find(body, "details", id="map-unreached-env_state")
    assert dict(category.attributes) == {
        "class": "map-unreached",
        "id": "map-unreached-env_state",
        "open": None,
    }
    state = "&amp;unreached=ENV_STATE&amp;unreached_page=2"
    assert f"page=2&amp;open={roots[2].pk}{state}#map-node-{roots[2].pk}" in body


def test_an_unknown_category_shows_no_list(client_as, project, make_loose):
    """A category with no unreached memory opens nothing on the page; htmx gets a short note."""
    make_loose(1)
    client = client_as("viewer")
    query = {"project": project.pk, "unreached": "NO_SUCH"}
    page = client.get(MAP, query)
    assert page.status_code == 200
    # The page's own content (the theme form at its foot names the page to come back to).
    main = find(page.content.decode(), "main")
    values = [value or "" for element in find_all(main) for value in element.attributes.values()]
    assert not [value for value in values if "unreached=NO_SUCH" in value]
    fragment = client.get(UNREACHED, query, HTTP_HX_REQUEST="true").content.decode()
    assert "None now" in fragment
    nameless = client.get(UNREACHED, {"project": project.pk}, HTTP_HX_REQUEST="true")
    assert nameless.status_code == 404


def _queries(client, url, query, **headers) -> int:
    """Return the queries of a request made a second time (the navigation's count is cached)."""
    client.get(url, query, **headers)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, query, **headers).status_code == 200
    return len(captured)


def test_queries_do_not_grow_with_the_map(
    client_as, project, make_roots, make_loose, small_pages, django_assert_max_num_queries
):
    """A map with more roots than a page costs the same few queries as one with one root."""
    client = client_as("viewer")
    make_roots(1)
    make_loose(1)
    query = {"project": project.pk, "unreached": "ENV_STATE"}
    small = _queries(client, MAP, query)
    roots = make_roots(9, start=1)
    make_loose(6, start=1)
    opened = {"open": [root.pk for root in roots], "page": 2}
    # Store markers and the stale fingerprint, the sizes (stored), the graph, the shown texts.
    with django_assert_max_num_queries(15):
        client.get(MAP, query | opened)
    assert _queries(client, MAP, query | opened) == small
    assert _queries(client, UNREACHED, query, HTTP_HX_REQUEST="true") <= small


@pytest.fixture
def tangled(project):
    """Return a map with every case a fragment must draw as the whole map does.

    A theme header with two composites over two category headers that share a detail;
    an archived member; a ring of two headers; an archived head over a live memory; a
    header whose only member is archived; loose memories of two categories, one of them
    with text the UTF-16 count sizes apart from its length.
    """

    def make(name, category="OPS_RULES"):
        text = f"{name} memory text{' 🧭' * len(name)}."
        return memory_create(project=project, category=category, content=text, actor="agent")

    m = {name: make(name) for name in ("theme", "ops", "env", "d1", "d2", "shared", "gone")}
    m |= {name: make(name, "ENV_STATE") for name in ("ring1", "ring2", "d5", "dead", "orphan")}
    m |= {name: make(name, "ENV_STATE") for name in ("lonely", "gone2")}
    m |= {f"loose{n}": make(f"loose{n}", ("ENV_STATE", "INCIDENTS")[n % 2]) for n in range(7)}
    for head, type, members in (
        ("theme", "theme", ["ops", "env"]),
        ("theme", "sequence", ["d1", "env"]),
        ("ops", "sequence", ["d1", "d2", "shared"]),
        ("env", "theme", ["shared", "gone"]),
        ("ring1", "theme", ["ring2"]),
        ("ring2", "sequence", ["ring1", "d5"]),
        ("dead", "theme", ["orphan"]),
        ("lonely", "theme", ["gone2"]),
    ):
        composite_create(head=m[head], type=type, members=[m[n] for n in members], actor="agent")
    for name in ("gone", "dead", "gone2"):
        memory_update(memory=m[name], status="archived", actor="agent")
    return m


def _whole_map_fragments(monkeypatch):
    """Make the fragments read the whole map, as they did before reading only what they show."""

    def below(project, memory_id):
        tree = header_map(project)
        return tree if memory_id in tree.memories else None

    monkeypatch.setattr(views, "header_map_below", below)
    monkeypatch.setattr(
        views,
        "unreached_memories",
        lambda project, category: header_map(project).unreached(category),
    )


def _fragments(client, project, memories) -> list[tuple[int, bytes]]:
    """Return the status and body of every node's details and every unreached list page.

    An error's body is left out: the error page carries this response's CSP nonce and token.
    """
    answers = []
    for memory in memories:
        for path in (str(memory.pk), f"{memories[0].pk}.{memory.pk}"):
            query = {"project": project.pk, "path": path, "page": 2, "unreached": "INCIDENTS"}
            response = client.get(
                reverse("headermap:details", args=[memory.pk]), query, HTTP_HX_REQUEST="true"
            )
            body = response.content if response.status_code == 200 else b""
            answers.append((response.status_code, body))
    for category in ("ENV_STATE", "INCIDENTS", "OPS_RULES", "UNKNOWN"):
        for page in ("1", "2", "3", "99", "x"):
            query = {"project": project.pk, "unreached": category, "unreached_page": page}
            response = client.get(UNREACHED, query | {"open": [1, 2]}, HTTP_HX_REQUEST="true")
            body = response.content if response.status_code == 200 else b""
            answers.append((response.status_code, body))
    return answers


def test_fragments_read_only_what_they_show_and_draw_what_the_whole_map_draws(
    client_as, project, tangled, small_pages, monkeypatch
):
    """Every node's details and unreached list page is byte for byte what the whole map gives."""
    client = client_as("viewer")
    memories = sorted(tangled.values(), key=lambda memory: memory.pk)
    shown = _fragments(client, project, memories)
    _whole_map_fragments(monkeypatch)
    assert shown == _fragments(client, project, memories)
    assert {status for status, _ in shown} == {200, 404}  # archived memories have no details
    assert any(b"ring" in body and b"shown above" not in body for _, body in shown)
    assert any(b"loose" in body for _, body in shown)


def test_the_part_of_the_map_a_node_reads_gives_the_whole_maps_details(project, tangled):
    """A node's details, read with the text below them only, are the whole map's nodes."""
    whole = header_map(project)
    for memory in tangled.values():
        below = header_map_below(project, memory.pk)
        if memory.pk not in whole.memories:
            assert below is None
            continue
        assert below.details(memory.pk) == whole.details(memory.pk)
        assert set(below.memories) == whole.graph.shown_by_details(memory.pk)


def test_a_categorys_unreached_memories_are_the_whole_maps(project, tangled):
    """The unreached memories of a category, read a page at a time, are those of the whole map."""
    whole = header_map(project)
    for category in ("ENV_STATE", "INCIDENTS", "OPS_RULES"):
        memories = unreached_memories(project, category)
        assert memories[0 : len(memories)] == whole.unreached(category)
        assert memories[2:4] == whole.unreached(category)[2:4]
    assert [m.content for m in unreached_memories(project, "ENV_STATE")[0:9]] == [
        f"{name} memory text{' 🧭' * len(name)}."
        for name in ("orphan", "loose0", "loose2", "loose4", "loose6")
    ]


def test_fragments_read_in_constant_queries(
    client_as, project, make_roots, make_loose, small_pages, django_assert_max_num_queries
):
    """A node's details and a page of unreached memories cost the same queries on a bigger map."""
    client = client_as("viewer")
    roots = make_roots(1)
    make_loose(1)
    details = reverse("headermap:details", args=[roots[0].pk])
    node = {"project": project.pk, "path": str(roots[0].pk)}
    unreached = {"project": project.pk, "unreached": "ENV_STATE"}
    small = (
        _queries(client, details, node, HTTP_HX_REQUEST="true"),
        _queries(client, UNREACHED, unreached, HTTP_HX_REQUEST="true"),
    )
    make_roots(9, start=1)
    make_loose(6, start=1)
    with django_assert_max_num_queries(10):  # the stale headers: their fingerprint, then the ids
        client.get(details, node, HTTP_HX_REQUEST="true")
    with django_assert_max_num_queries(10):  # the stale headers: their fingerprint, then the ids
        client.get(UNREACHED, unreached | {"unreached_page": 2}, HTTP_HX_REQUEST="true")
    assert _queries(client, details, node, HTTP_HX_REQUEST="true") == small[0]
    assert _queries(client, UNREACHED, unreached, HTTP_HX_REQUEST="true") == small[1]


def test_a_node_reads_what_it_shows_in_batches_where_the_database_takes_few_parameters(
    project, tangled, monkeypatch
):
    """Where a query takes few parameters, the memories below a node are read in several."""
    # A property: it wins over the value a backend has cached on its features.
    monkeypatch.setattr(type(connection.features), "max_query_params", property(lambda _: 5))
    theme, whole = tangled["theme"], header_map(project)
    with CaptureQueriesContext(connection) as captured:
        details = header_map_below(project, theme.pk).details(theme.pk)
    assert details == whole.details(theme.pk)
    assert len(whole.graph.shown_by_details(theme.pk)) == 5
    assert len(captured) == 3 + 3  # live ids, members, composites; 5 memories, 2 a query
