"""The overview at `/`: each project's figures, every one a link to the list behind it."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.composites.services import composite_create
from memadmin.core.clock import now_ms
from memadmin.core.process_cache import reset_process_caches
from memadmin.ledger.selectors import ledger_is_prepared
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, links, text, top
from tests.links import href

pytestmark = pytest.mark.django_db


@pytest.fixture
def store(project):
    rules = [
        memory_create(project=project, category="OPS_RULES", content=f"Rule {n}.", actor="agent")
        for n in range(4)
    ]
    memory_create(project=project, category="ENV_STATE", content="Node 3 drained.", actor="agent")
    memory_archive(memory=rules[3], actor="agent", reason="obsolete")
    composite_create(head=rules[0], type="sequence", members=rules[1:3], actor="agent")
    memory_update(memory=rules[1], content="Rule 1, revised.", actor="agent")  # header goes stale
    Memory.objects.filter(pk=rules[2].pk).update(expires_at=now_ms() + 2 * 86_400_000)
    Memory.objects.filter(pk=rules[0].pk).update(category="LEGACY_THING")  # not in the pack
    return project


def _coverage(html, pk: int) -> dict[str, str]:
    """Return the coverage shown in the project's section, by mode."""
    injection = find(find(html, "div", id=f"coverage-{pk}"), "table", class_="overview-injection")
    modes = [text(find(row, "th")) for row in find_all(find(injection, "tbody"), "tr")]
    return {m: text(find(injection, "td", class_=f"coverage-{m}")) for m in modes}


def _counted_section(client, pk: int) -> str:
    """Return the coverage section as htmx asks for it when the page has loaded."""
    response = client.get("/", {"coverage": pk}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.content.decode()


def test_the_overview_shows_each_projects_figures_with_links(client_as, store):
    """Totals by status and category, attention items, changes; the coverage comes after."""
    client = client_as("viewer")
    response = client.get("/")
    html = response.content.decode()
    pk = store.pk
    assert response.status_code == 200
    card = find(html, "section", class_="overview-project")
    assert ("archived 1", f"/memories/?project={pk}&status=archived") in links(
        find(card, "ul", class_="overview-statuses")
    )
    chart = find(find(card, "figure", class_="overview-chart"), "svg", class_="counts-chart")
    assert attribute(chart, "xmlns") == "http://www.w3.org/2000/svg"
    assert f"/memories/?project={pk}&category=OPS_RULES" in [href for _, href in links(chart)]
    attention = links(find(card, "ul", class_="overview-attention"))
    assert ("1 stale header", f"/map/stale/?project={pk}") in attention
    assert (
        "1 in LEGACY_THING",
        f"/memories/?project={pk}&category=LEGACY_THING&status=any",
    ) in attention
    assert ("1 expiring in the next 7 days", f"/memories/?project={pk}&expiring=7") in attention
    assert "archived" in html.split("Last 10 changes")[1]
    assert "obsolete" in html
    coverage = _coverage(_counted_section(client, pk), pk)
    assert {"plugin", "headers"} <= set(coverage)
    # Honest: the share of every live memory. The stock plugin reads none of ops-six's
    # categories, so it reaches none of them and says how many it can never inject.
    assert coverage["plugin"].startswith("0% ") and coverage["plugin"].endswith("never injectable")
    assert coverage["headers"] == "100%"


def test_the_first_overview_of_a_process_leaves_the_coverage_to_its_section(client_as, store):
    """A new process (a restart) shows the overview without preparing the project's ledger:
    the coverage section asks for itself on load, and links to the page with it counted."""
    pk = store.pk
    html = client_as("viewer").get("/").content.decode()
    section = find(html, "div", id=f"coverage-{pk}")
    assert attribute(section, "hx-get") == f"/?coverage={pk}"
    assert attribute(section, "hx-trigger") == "load"
    assert attribute(section, "hx-swap") == "outerHTML"
    assert not find_all(section, "table")
    assert href(section, "Count the coverage") == f"/?coverage={pk}#coverage-{pk}"
    assert not ledger_is_prepared(store, now_ms=now_ms())


def test_the_coverage_section_alone_answers_htmx_and_fills_itself(client_as, store):
    """The section htmx asks for is the page's own section, counted, asking for nothing more."""
    pk = store.pk
    fragment = _counted_section(client_as("viewer"), pk)
    (section,) = top(fragment)
    assert (section.name, attribute(section, "id")) == ("div", f"coverage-{pk}")
    assert attribute(section, "hx-get") is None
    assert _coverage(fragment, pk)["headers"] == "100%"
    assert "Counted by the" in text(section)


def test_without_javascript_the_link_shows_the_page_with_the_coverage_counted(
    client_as, store, make_project
):
    """The section's link loads the whole overview with that project's coverage in it;
    a project it does not name keeps its section to fill."""
    empty = make_project("ops-six", identity="dir:empty", name="Empty")
    other = make_project("ops-six", identity="dir:other", name="Other")
    memory_create(project=other, category="OPS_RULES", content="Rule.", actor="agent")
    client = client_as("viewer")
    pk = store.pk
    link = href(
        find(client.get("/").content.decode(), "div", id=f"coverage-{pk}"), "Count the coverage"
    )
    response = client.get(link)
    html = response.content.decode()
    assert response.status_code == 200
    assert text(find(html, "h1")) == "Overview"
    assert _coverage(html, pk)["headers"] == "100%"
    assert (
        attribute(find(html, "div", id=f"coverage-{other.pk}"), "hx-get")
        == f"/?coverage={other.pk}"
    )
    assert not find_all(html, "div", id=f"coverage-{empty.pk}")  # no memory: nothing to count


def test_once_counted_the_overview_shows_the_coverage_at_once(client_as, store):
    """While this process keeps the project prepared as the store is now, `/` counts it in
    the page; a write, or a new process, leaves it to the section again."""
    client = client_as("viewer")
    pk = store.pk
    _counted_section(client, pk)
    html = client.get("/").content.decode()
    assert attribute(find(html, "div", id=f"coverage-{pk}"), "hx-get") is None
    assert _coverage(html, pk)["headers"] == "100%"
    memory_create(project=store, category="ENV_STATE", content="Node 4 drained.", actor="agent")
    html = client.get("/").content.decode()
    assert attribute(find(html, "div", id=f"coverage-{pk}"), "hx-get") == f"/?coverage={pk}"
    injected = find_all(_counted_section(client, pk), "td", data_label="Injected")
    assert [text(cell).endswith(" of 5") for cell in injected] == [True, True]  # the new one too
    reset_process_caches()  # a new process
    html = client.get("/").content.decode()
    assert attribute(find(html, "div", id=f"coverage-{pk}"), "hx-get") == f"/?coverage={pk}"


@pytest.mark.parametrize("value", ["abc", "0", "99999999999999999999999", "999999"])
@pytest.mark.parametrize("htmx", [False, True])
def test_a_coverage_of_no_project_is_not_found(client_as, store, value, htmx):
    """`?coverage=` naming no project answers 404, with htmx or without."""
    headers = {"HX-Request": "true"} if htmx else {}
    assert client_as("viewer").get("/", {"coverage": value}, headers=headers).status_code == 404


def test_the_overview_says_what_the_stock_plugin_never_injects_and_links_the_health_queue(
    client_as, store
):
    """Ops-six memories are never read by the stock plugin: the overview says so, and why."""
    client = client_as("viewer")
    html = _counted_section(client, store.pk)
    assert "4 live memories are never injected by the stock plugin: magic-context does not" in html
    assert "know the categories" in html and "OPS_RULES (2): never injected." in html
    attention = links(find(client.get("/").content.decode(), "ul", class_="overview-attention"))
    assert ("The health queue", f"/curation/{store.pk}/health/") in attention


def test_the_overview_reads_the_same_number_of_queries_for_more_memories(client_as, store):
    """Ten times the memories cost no extra query: nothing is read memory by memory."""
    client = client_as("viewer")

    def queries() -> tuple[int, int]:
        _counted_section(client, store.pk)  # counts new texts once, then reads them from its cache
        client.get("/")
        with CaptureQueriesContext(connection) as section:
            _counted_section(client, store.pk)
        with CaptureQueriesContext(connection) as page:
            client.get("/")
        return len(section), len(page)

    few = queries()
    for n in range(40):
        memory_create(project=store, category="ENV_STATE", content=f"Host {n} up.", actor="agent")
    assert queries() == few


def test_a_person_without_a_role_is_told_to_ask_for_one(client, store):
    """Signed in without a role, `/` says so instead of refusing."""
    nobody = get_user_model().objects.create_user(username="nobody", password="x" * 20)
    client.force_login(nobody)
    response = client.get("/")
    assert response.status_code == 200
    assert "with no role yet" in response.content.decode()
