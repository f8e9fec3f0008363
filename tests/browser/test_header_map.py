"""The header map in a browser: pages of roots and unreached lists swap in place, or load pages."""

import pytest

from memadmin.composites.services import composite_create
from memadmin.headermap import views
from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def big_map(project, monkeypatch):
    """Five top headers (two a page) with a detail each, and five memories no header reaches."""
    monkeypatch.setattr(views, "ROOTS_PER_PAGE", 2)
    monkeypatch.setattr(views, "UNREACHED_PER_PAGE", 2)

    def make(content, category="OPS_RULES"):
        return memory_create(project=project, category=category, content=content, actor="agent")

    roots = []
    for n in range(5):
        head, detail = make(f"Root {n}."), make(f"Detail of root {n}.")
        composite_create(head=head, type="sequence", members=[detail], actor="agent")
        roots.append(head)
    for n in range(5):
        make(f"Loose {n}.", category="ENV_STATE")
    return roots


def test_paging_the_roots_swaps_only_the_tree(logged_in_page, live_server, project, big_map):
    """Next swaps in the next roots and names them in the address; their nodes open by htmx."""
    page = logged_in_page("viewer")
    page.goto(f"{live_server.url}/map/?project={project.pk}")
    page.evaluate("window.__marker = 'still here'")
    page.click("#map-tree .pagination a:has-text('Next')")
    page.wait_for_url("**page=2**")
    page.locator("#map-tree", has_text="Root 2.").wait_for()
    assert page.locator("#map-tree", has_text="Root 0.").count() == 0
    assert page.evaluate("window.__marker") == "still here"  # no full reload happened
    assert page.locator(".map-summary").count() == 1
    page.locator(f"#map-node-{big_map[2].pk} > details > summary").click()
    page.locator("#map-tree", has_text="Detail of root 2.").wait_for()
    page.go_back()
    page.locator("#map-tree", has_text="Root 0.").wait_for()


def test_opening_a_category_loads_its_list_then_pages_it(
    logged_in_page, live_server, project, big_map
):
    """A category's memories are fetched when it is opened; its page links swap the list only."""
    page = logged_in_page("viewer")
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{live_server.url}/map/?project={project.pk}")
    page.evaluate("window.__marker = 'still here'")
    assert page.locator("text=Loose 0.").count() == 0
    assert not any("/map/unreached/" in url for url in requests)
    category = page.locator("#map-unreached-env_state")
    category.locator("summary").click()
    category.locator("text=Loose 0.").wait_for()
    assert any("/map/unreached/" in url for url in requests)
    category.locator(".pagination a:has-text('Next')").click()
    category.locator("text=Loose 2.").wait_for()
    assert category.locator("text=Loose 0.").count() == 0
    assert page.evaluate("window.__marker") == "still here"
    assert "unreached" not in page.url  # the list pages in place, the page's address stays


@pytest.mark.browser_context_args(java_script_enabled=False)
def test_the_same_flows_work_without_javascript(logged_in_page, live_server, project, big_map):
    """With JavaScript off, the show and page links load whole pages that keep one another."""
    page = logged_in_page("viewer")
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{live_server.url}/map/?project={project.pk}")
    page.click("#map-tree .pagination a:has-text('Next')")
    page.wait_for_url("**page=2**")
    # The native <details> opens without JavaScript, showing the link that loads the list.
    page.click("#map-unreached-env_state summary")
    page.click("#map-unreached-env_state a:has-text('Show them')")
    page.wait_for_url("**unreached=ENV_STATE**")
    assert "page=2" in page.url
    page.click("#map-unreached-env_state .pagination a:has-text('Next')")
    page.wait_for_url("**unreached_page=2**")
    listed = page.locator("#map-unreached-env_state").inner_text()
    assert "Loose 2." in listed and "Loose 0." not in listed
    tree = page.locator("#map-tree").inner_text()
    assert "Root 2." in tree and "Root 0." not in tree
    page.click(f"#map-node-{big_map[2].pk} summary")
    page.click(f"#map-node-{big_map[2].pk} a:has-text('Show its 1 detail')")
    page.wait_for_url(f"**open={big_map[2].pk}**")
    assert "page=2" in page.url and "unreached_page=2" in page.url
    assert "Detail of root 2." in page.locator("#map-tree").inner_text()
    assert not any("/map/unreached/" in url or "/map/node/" in url for url in requests)
