"""The Structure pages: the projects, and a project's long memories to fragment."""

import pytest

from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from tests.html_tree import attribute, find, find_all, links, text

from .test_fragment_views import SOP

pytestmark = pytest.mark.django_db

LONGER_SOP = SOP.replace("in #releases,", "in #releases and in the team's weekly notes,")
DOSSIER = (
    "Config of the payments service, as deployed in every region this quarter.\n\n"
    "Timeouts are 30 seconds for the card network and 5 seconds for the fraud check.\n\n"
    "Retries: three, with exponential backoff from 200 ms, then the payment is parked.\n\n"
    "Alerts page the payments on-call after five parked payments in ten minutes."
)


def page_of(project) -> str:
    return f"/structure/{project.pk}/"


def candidate_rows(html: str) -> list[list[str]]:
    table = find(html, "table", class_="data-table fragment-candidates")
    return [[text(cell) for cell in find_all(row, "td")] for row in find_all(table, "tr")[1:]]


def test_the_page_lists_long_memories_longest_first_with_their_size(client_as, project, remember):
    """Candidates come longest first, each with characters, tokens and its proposed details;
    short, unstructured and archived memories are not candidates."""
    sop = remember(SOP)
    longer = remember(LONGER_SOP, category="ENV_STATE")
    dossier = remember(DOSSIER)
    assert len(DOSSIER) >= 280
    remember("A short fact.")
    remember("x" * 400)  # long, but nothing to split along
    archived = remember(SOP.replace("Release SOP", "Old release SOP"))
    memory_update(memory=archived, status=Memory.Status.ARCHIVED, actor="agent")
    response = client_as("editor").get(page_of(project))
    assert response.status_code == 200
    rows = candidate_rows(response.content.decode())
    assert [row[0] for row in rows] == [
        str(m.display_id)
        for m in sorted([sop, longer, dossier], key=lambda m: (-len(m.content), m.pk))
    ]
    first = rows[0]
    assert first[3] == str(len(LONGER_SOP))
    assert first[4] == str(longer.size.tokens)
    assert first[5] == "4"  # the title paragraph and three steps
    assert first[6] == "Fragment…"


def test_each_candidate_links_to_the_fragment_tool_under_structure(client_as, project, remember):
    """ "Fragment…" opens the tool at /structure/fragment/<id>/, with Structure highlighted."""
    memory = remember(SOP)
    client = client_as("editor")
    html = client.get(page_of(project)).content.decode()
    table = find(html, "table", class_="data-table fragment-candidates")
    assert ("Fragment…", f"/structure/fragment/{memory.pk}/") in links(table)
    tool = client.get(f"/structure/fragment/{memory.pk}/").content.decode()
    crumbs = find(tool, "p", class_="crumbs")
    assert links(crumbs)[0] == ("Structure of Ops", page_of(project))
    (current,) = [a for a in find_all(find(tool, "nav"), "a") if attribute(a, "aria-current")]
    assert text(current) == "Structure"


def test_a_viewer_sees_the_candidates_without_the_fragment_action(client_as, project, remember):
    """A viewer reads the list and is told fragmenting needs the editor role."""
    remember(SOP)
    html = client_as("viewer").get(page_of(project)).content.decode()
    assert len(candidate_rows(html)) == 1
    assert "/structure/fragment/" not in html
    assert "Fragmenting one needs the editor role." in text(
        find(html, "section", id="fragment-candidates")
    )


def test_a_project_without_candidates_says_so(client_as, project, remember):
    remember("A short fact.")
    html = client_as("viewer").get(page_of(project)).content.decode()
    assert "No live memory of this project is long enough" in html


def test_the_navigation_names_structure_and_the_index_lists_projects(client_as, project, remember):
    """Structure is in the navigation, highlighted on its pages; the index counts long ones."""
    remember(SOP)
    remember("A short fact.")
    html = client_as("viewer").get("/structure/").content.decode()
    nav = find(html, "nav")
    assert ("Structure", "/structure/") in links(nav)
    (current,) = [a for a in find_all(nav, "a") if attribute(a, "aria-current")]
    assert text(current) == "Structure"
    table = find(html, "table", class_="data-table structure-projects")
    assert links(table) == [("Ops", page_of(project))]
    assert text(find_all(table, "td")[-1]) == "1"


def test_candidates_are_paged_and_an_htmx_page_is_the_section(client_as, project, remember):
    """26 candidates make two pages; page 2 holds the shortest; the pager's htmx request gets
    the section alone."""
    for n in range(26):
        remember(SOP + " Extra" * n)
    client = client_as("viewer")
    html = client.get(page_of(project)).content.decode()
    assert len(candidate_rows(html)) == 25
    pager = find(html, "nav", **{"aria-label": "Pages of fragment candidates"})
    assert ("2", f"{page_of(project)}?page=2#fragment-candidates") in links(pager)
    (two,) = [a for a in find_all(pager, "a") if text(a) == "2"]
    assert attribute(two, "hx-get") == f"{page_of(project)}?page=2"
    assert attribute(two, "hx-target") == "#fragment-candidates"
    # Only the pager swaps the section: its other links (a memory, Fragment…) are whole pages.
    assert attribute(find(html, "section", id="fragment-candidates"), "hx-boost") is None
    second = client.get(page_of(project), {"page": "2"}, headers={"HX-Request": "true"})
    body = second.content.decode()
    assert body.lstrip().startswith('<section id="fragment-candidates"')
    assert candidate_rows(body)[0][3] == str(len(SOP))


def test_an_old_fragment_address_redirects_to_structure(client_as, remember):
    """/ledger/fragment/<id>/ (bookmarks, old links) goes to the tool's new address."""
    memory = remember(SOP)
    response = client_as("editor").get(f"/ledger/fragment/{memory.pk}/", {"by": "paragraphs"})
    assert response.status_code == 301
    assert response["Location"] == f"/structure/fragment/{memory.pk}/?by=paragraphs"
