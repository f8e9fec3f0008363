"""Creating a composite from its own page: a real page, every bad id named at once."""

import pytest

from memadmin.composites.models import Composite
from memadmin.memories.services import memory_create
from tests.html_tree import field_error, find, links

pytestmark = pytest.mark.django_db


@pytest.fixture
def memories(project):
    return [
        memory_create(project=project, category="OPS_RULES", content=f"Step {n}.", actor="agent")
        for n in range(3)
    ]


def test_the_list_offers_new_composite_to_editors_only(client_as):
    """Editors see a "New composite" button on the list; viewers do not."""
    editors = find(
        client_as("editor").get("/composites/").content.decode(), "div", class_="page-head"
    )
    assert links(editors) == [("New composite", "/composites/new/")]
    viewers = find(
        client_as("viewer").get("/composites/").content.decode(), "div", class_="page-head"
    )
    assert links(viewers) == []


def test_the_bare_page_asks_for_project_head_and_members(client_as, project):
    """/composites/new/ without a head is a form, not a 404."""
    response = client_as("editor").get("/composites/new/")
    html = response.content.decode()
    assert response.status_code == 200
    form = find(html, "form", method="post", action="/composites/new/")
    for name in ("project", "head", "members", "type"):
        assert find(form, name=name)


def test_every_bad_id_is_reported_at_once(client_as, project, memories):
    """A bad head and two bad members are all named; nothing is created."""
    response = client_as("editor").post(
        "/composites/new/",
        {"project": project.pk, "head": "9990", "members": f"{memories[1].pk}, 9991, 9992"},
    )
    html = response.content.decode()
    assert response.status_code == 400
    for missing in (9990, 9991, 9992):
        assert f"No memory #{missing} in Ops." in html
    assert "No memory #9990 in Ops." in field_error(html, "id_head")
    assert "No memory #9992 in Ops." in field_error(html, "id_members")
    assert not Composite.objects.exists()


def test_the_page_creates_a_composite_from_ids(client_as, project, memories):
    """Good ids make the composite, members in the order typed."""
    head, *steps = memories
    response = client_as("editor").post(
        "/composites/new/",
        {
            "project": project.pk,
            "head": f"#{head.pk}",
            "members": f"{steps[1].pk} {steps[0].pk}",
            "type": "sequence",
        },
    )
    composite = Composite.objects.get()
    assert response.status_code == 302
    assert composite.head == head
    assert [m.member for m in composite.members.order_by("position")] == [steps[1], steps[0]]
