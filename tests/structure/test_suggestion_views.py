"""The structure assistant's page: suggestions with their headers and effect for everyone,
apply (chosen or all, headers as edited) for a curator, refusals shown with the page as it is."""

import pytest

from memadmin.composites.models import Composite
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, text

SERVICES = ["api-gateway", "audit-writer", "billing-worker"]
SOP = """# Failover of the primary database
1. Page the database on-call and announce the failover in #ops.
2. Freeze deploys for every service that writes to the primary.
3. Promote the replica in the DR region with `pg_ctl promote`.
4. Point the connection pooler at the new primary and reload it."""


@pytest.fixture
def store(project):
    for week in range(3):
        for service in SERVICES:
            memory_create(
                project=project,
                category="CONFIG_VALUES",
                content=f"{service} request timeout: {10 + week} s, chosen after review {week}",
                actor="system",
            )
    memory_create(project=project, category="OPS_RULES", content=SOP, actor="system")
    return project


def url(project) -> str:
    return f"/structure/{project.pk}/suggestions/"


def apply_url(project) -> str:
    return f"/structure/{project.pk}/suggestions/apply/"


def boxes(body) -> list[str]:
    return [attribute(box, "value") for box in find_all(body, "input", name="chosen")]


def test_a_viewer_sees_suggestions_headers_and_coverage_but_no_apply(store, client_as):
    body = client_as("viewer").get(url(store)).content.decode()
    assert "Failover of the primary database (4 steps): " in body
    assert "request timeout: … s, chosen after review … (9 memories)" in body
    table = find(body, "table", class_="structure-effect")
    assert "1500 tokens" in text(table) and "4000 tokens" in text(table)
    assert boxes(body) == []
    # Each suggestion says what it costs now and once its header stands for it.
    assert "The 9 memories take about " in body and "and all 9 are reachable through it" in body
    assert "needs the curator role" in body
    assert client_as("viewer").post(apply_url(store), {"apply": "all"}).status_code == 403


def test_a_curator_applies_the_chosen_with_an_edited_header(store, client_as):
    client = client_as("curator")
    body = client.get(url(store)).content.decode()
    family = next(key for key in boxes(body) if key.startswith("family:"))
    response = client.post(
        apply_url(store),
        {"chosen": [family], f"header-{family}": "Timeouts, by service", "apply": "chosen"},
    )
    assert response.status_code == 302
    (composite,) = Composite.objects.filter(project=store)
    assert composite.head.content == "Timeouts, by service"
    assert composite.members.count() == 9
    page = client.get(response["Location"]).content.decode()
    assert "Applied 1 suggestion: 1 family grouped." in page
    assert find_all(page, "form", class_="undo-form")  # the message's Undo
    assert Memory.objects.get(project=store, content=SOP).status == "active"


def test_apply_all_applies_every_suggestion(store, client_as):
    response = client_as("curator").post(apply_url(store), {"apply": "all", "reason": "tidy"})
    assert response.status_code == 302
    assert Composite.objects.filter(project=store).count() == 2
    assert Memory.objects.get(project=store, content=SOP).status == "archived"


def test_a_suggestion_changed_since_the_page_is_refused_and_nothing_written(store, client_as):
    client = client_as("curator")
    keys = boxes(client.get(url(store)).content.decode())
    member = Memory.objects.filter(project=store, category="CONFIG_VALUES").first()
    memory_update(memory=member, actor="agent", content=member.content + " Checked.")
    response = client.post(apply_url(store), {"chosen": keys, "apply": "chosen"})
    assert response.status_code == 409
    assert "changed since the page was shown" in response.content.decode()
    assert not Composite.objects.filter(project=store).exists()


def test_nothing_chosen_is_said(store, client_as):
    response = client_as("curator").post(apply_url(store), {"apply": "chosen"})
    assert response.status_code == 400
    assert "Choose at least one suggestion" in response.content.decode()
