"""The header map page: roots first, details on demand, working with and without htmx."""

import pytest
from django.urls import reverse

from memadmin.composites.services import composite_create
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, links, parse, text, top

pytestmark = pytest.mark.django_db


def test_the_page_shows_roots_and_not_their_details(client_as, two_layers, project):
    """Only the top headers are drawn until a node is opened."""
    body = (
        client_as("viewer")
        .get(reverse("headermap:index"), {"project": project.pk})
        .content.decode()
    )
    assert "theme memory text." in body
    assert "ops memory text." not in body
    assert "theme header" in body
    assert "Show its 2 details" in body
    assert f"node/{two_layers['theme'].pk}/" in body


def test_memories_no_header_reaches_are_summed_up_by_category(client_as, two_layers, project):
    """The page counts a memory in no composite under its category; its text waits to be asked."""
    body = (
        client_as("viewer")
        .get(reverse("headermap:index"), {"project": project.pk})
        .content.decode()
    )
    summary = [text(line) for line in find_all(find(body, "ul", class_="map-summary"), "li")]
    assert summary[2].startswith("1 memory no header reaches · ")
    category = find(body, "details", class_="map-unreached", id="map-unreached-ops_rules")
    assert text(find(category, "summary")).startswith("OPS_RULES · 1 memory · ")
    assert "loose memory text." not in body
    show = f"/map/?project={project.pk}&unreached=OPS_RULES#map-unreached-ops_rules"
    assert links(find(category, "div", class_="map-unreached-list")) == [("Show this memory", show)]


def test_memories_no_header_reaches_are_listed_on_demand(client_as, two_layers, project):
    """A memory in no composite is listed in its category's group once the category is asked."""
    client = client_as("viewer")
    query = {"project": project.pk, "unreached": "OPS_RULES"}
    page = client.get(reverse("headermap:index"), query).content.decode()
    fragment = client.get(reverse("headermap:unreached"), query, HTTP_HX_REQUEST="true")
    assert "loose memory text." in page
    category = find(page, "details", id="map-unreached-ops_rules", open=True)
    assert "loose memory text." in text(category)
    assert "loose memory text." in fragment.content.decode()
    assert "<html" not in fragment.content.decode()
    listed = top(fragment.content.decode())[0]  # the category's list, alone
    assert listed.name == "ul" and "loose memory text." in text(listed)


def test_an_open_node_is_expanded_without_javascript(client_as, two_layers, project):
    """`?open=` renders that node's details on the server."""
    theme, ops = two_layers["theme"], two_layers["ops"]
    response = client_as("viewer").get(
        reverse("headermap:index"), {"project": project.pk, "open": [theme.pk, ops.pk]}
    )
    body = response.content.decode()
    assert "ops memory text." in body and "env memory text." in body
    assert "d1 memory text." in body
    assert "d3 memory text." not in body


def test_htmx_loads_one_nodes_details(client_as, two_layers, project):
    """The details endpoint answers htmx with the list of that node's details only."""
    theme = two_layers["theme"]
    response = client_as("viewer").get(
        reverse("headermap:details", args=[theme.pk]),
        {"project": project.pk, "path": str(theme.pk)},
        HTTP_HX_REQUEST="true",
    )
    body = response.content.decode()
    assert "<html" not in body
    (listed,) = top(body)  # the node's list of details, alone
    assert (listed.name, attribute(listed, "class")) == ("ul", "map-tree")
    assert "ops memory text." in text(listed) and "env memory text." in text(listed)
    assert "d1 memory text." not in body
    assert "category header" in body


def test_details_endpoint_without_htmx_redirects_to_the_open_page(client_as, two_layers, project):
    """A plain visit of the endpoint lands on the page with the node open."""
    theme = two_layers["theme"]
    response = client_as("viewer").get(
        reverse("headermap:details", args=[theme.pk]), {"project": project.pk}
    )
    assert response.status_code == 302
    assert f"open={theme.pk}" in response.url


def test_a_nested_node_without_htmx_lands_on_its_own_row(client_as, two_layers, project):
    """The redirect opens the whole path and scrolls to the node's row, whose id is its path."""
    theme, ops = two_layers["theme"], two_layers["ops"]
    client = client_as("viewer")
    response = client.get(
        reverse("headermap:details", args=[ops.pk]),
        {"project": project.pk, "path": f"{theme.pk}.{ops.pk}"},
    )
    path, anchor = response.url.split("#")
    assert anchor == f"map-node-{theme.pk}-{ops.pk}"
    assert find(client.get(path).content.decode(), "li", class_="map-node", id=anchor)


def test_counts_and_token_sizes_are_shown(client_as, two_layers, project):
    """Each node shows its details, what lies below it and its token sizes."""
    body = (
        client_as("viewer")
        .get(reverse("headermap:index"), {"project": project.pk})
        .content.decode()
    )
    assert "2 details, 6 below" in body
    assert "with details)" in body


def test_the_map_reads_in_constant_queries(
    client_as, two_layers, project, django_assert_max_num_queries
):
    """The page costs the same few queries however many nodes are open."""
    client = client_as("viewer")
    opened = [m.pk for m in two_layers.values()]
    # Two more than before the map was kept: the store's markers, the stale fingerprint.
    with django_assert_max_num_queries(14):
        client.get(reverse("headermap:index"), {"project": project.pk, "open": opened})


def test_a_header_whose_details_changed_is_marked_stale(client_as, two_layers, project):
    """A detail edited after its header was written marks the header stale on the map."""
    memory_update(memory=two_layers["ops"], content="ops, rewritten.", actor="agent")
    body = (
        client_as("viewer")
        .get(reverse("headermap:index"), {"project": project.pk})
        .content.decode()
    )
    tree = parse(body)
    (badge,) = find_all(tree, "a", class_="stale")
    assert badge.attributes == {
        "class": "badge stale",
        "href": reverse("headermap:stale"),
        "title": "Its details changed since it was last synced",
    }
    assert text(badge) == "stale"
    # On the header's own line: the theme, whose detail ops is.
    theme_line = find(find(tree, "li", id=f"map-node-{two_layers['theme'].pk}"), "summary")
    assert find(theme_line, "a", class_="stale") is badge


def test_memory_text_is_escaped_on_the_map(client_as, project):
    """Headers, details and unreached memories show their text escaped."""
    hostile = '<script>alert("x")</script>'
    head, detail, _loose = (
        memory_create(
            project=project, category="OPS_RULES", content=f"{hostile} {n}", actor="agent"
        )
        for n in range(3)
    )
    composite_create(head=head, type="theme", members=[detail], actor="agent")
    client = client_as("viewer")
    page = client.get(reverse("headermap:index"), {"project": project.pk, "open": [head.pk]})
    fragment = client.get(
        reverse("headermap:details", args=[head.pk]),
        {"project": project.pk, "path": str(head.pk)},
        HTTP_HX_REQUEST="true",
    )
    unreached = client.get(
        reverse("headermap:unreached"),
        {"project": project.pk, "unreached": "OPS_RULES"},
        HTTP_HX_REQUEST="true",
    )
    for body in (page.content.decode(), fragment.content.decode(), unreached.content.decode()):
        assert "<script>alert" not in body
        assert "&lt;script&gt;" in body


def test_node_links_keep_the_project_the_open_nodes_and_the_path(client_as, two_layers, project):
    """A closed node links to the page with its path open, and to its details by path."""
    theme, ops = two_layers["theme"], two_layers["ops"]
    body = (
        client_as("viewer")
        .get(reverse("headermap:index"), {"project": project.pk, "open": [theme.pk]})
        .content.decode()
    )
    page = f"{reverse('headermap:index')}?project={project.pk}"
    anchor = f"map-node-{theme.pk}-{ops.pk}"
    node = find(body, "li", id=anchor)
    assert links(find(node, "div", class_="map-details")) == [
        ("Show its 2 details", f"{page}&open={theme.pk}&open={ops.pk}#{anchor}")
    ]
    details = reverse("headermap:details", args=[ops.pk])
    closed = find(node, "details")
    assert attribute(closed, "hx-get") == f"{details}?project={project.pk}&path={theme.pk}.{ops.pk}"
    assert attribute(closed, "hx-trigger") == "toggle once"
