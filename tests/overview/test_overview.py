"""The overview at `/`: each project's figures, every one a link to the list behind it."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.composites.services import composite_create
from memadmin.core.clock import now_ms
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, links, text

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


def test_the_overview_shows_each_projects_figures_with_links(client_as, store):
    """Totals by status and category, injection in both modes, attention items, changes."""
    response = client_as("viewer").get("/")
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
    injection = find(card, "table", class_="overview-injection")
    modes = [text(find(row, "th")) for row in find_all(find(injection, "tbody"), "tr")]
    coverage = {m: text(find(injection, "td", class_=f"coverage-{m}")) for m in modes}
    assert {"plugin", "headers"} <= set(modes)
    # Honest: the share of every live memory. The stock plugin reads none of ops-six's
    # categories, so it reaches none of them and says how many it can never inject.
    assert coverage["plugin"].startswith("0% ") and coverage["plugin"].endswith("never injectable")
    assert coverage["headers"] == "100%"
    attention = links(find(card, "ul", class_="overview-attention"))
    assert ("1 stale header", f"/map/stale/?project={pk}") in attention
    assert (
        "1 in LEGACY_THING",
        f"/memories/?project={pk}&category=LEGACY_THING&status=any",
    ) in attention
    assert ("1 expiring in the next 7 days", f"/memories/?project={pk}&expiring=7") in attention
    assert "archived" in html.split("Last 10 changes")[1]
    assert "obsolete" in html


def test_the_overview_says_what_the_stock_plugin_never_injects_and_links_the_health_queue(
    client_as, store
):
    """Ops-six memories are never read by the stock plugin: the overview says so, and why."""
    html = client_as("viewer").get("/").content.decode()
    assert "4 live memories are never injected by the stock plugin: magic-context does not" in html
    assert "know the category OPS_RULES: never injected (2)" in html
    attention = links(find(html, "ul", class_="overview-attention"))
    assert ("The health queue", f"/curation/{store.pk}/health/") in attention


def test_the_overview_reads_the_same_number_of_queries_for_more_memories(client_as, store):
    """Ten times the memories cost no extra query: nothing is read memory by memory."""
    client = client_as("viewer")
    client.get("/")
    with CaptureQueriesContext(connection) as few:
        client.get("/")
    for n in range(40):
        memory_create(project=store, category="ENV_STATE", content=f"Host {n} up.", actor="agent")
    client.get("/")  # the ledger counts the new texts once, then reads them from its cache
    with CaptureQueriesContext(connection) as many:
        client.get("/")
    assert len(many) == len(few)


def test_a_person_without_a_role_is_told_to_ask_for_one(client, store):
    """Signed in without a role, `/` says so instead of refusing."""
    nobody = get_user_model().objects.create_user(username="nobody", password="x" * 20)
    client.force_login(nobody)
    response = client.get("/")
    assert response.status_code == 200
    assert "with no role yet" in response.content.decode()
