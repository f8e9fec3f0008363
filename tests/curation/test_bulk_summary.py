"""The review's sentence is `BulkPlan.summary`: what changes, where to, and what is left."""

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from memadmin.curation.bulk_services import BulkPlan, bulk_plan
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from tests.html_tree import attribute, find, find_all


def rows(count: int, start: int = 1) -> list[Memory]:
    return [Memory(pk=start + i) for i in range(count)]


@pytest.mark.parametrize(
    ("plan", "target", "sentence"),
    [
        (BulkPlan("archive", change=rows(1)), "", ("1 row will change", ".")),
        (BulkPlan("move", change=rows(3), unchanged=rows(1, 9)), "OPS_RULES",
         ("3 rows will change", " (moved to OPS_RULES); 1 already as asked.")),
        (BulkPlan("add", change=rows(2), refused=[(Memory(pk=9), "archived")]), "Deploy",
         ("2 rows will change", " (added to Deploy); 1 cannot change.")),
        (BulkPlan("restore", change=rows(3), restore_to={1: "permanent", 2: "active", 3: "active"}),
         "", ("3 rows will change", " (2 back to active, 1 back to permanent).")),
        (BulkPlan("archive", unchanged=rows(2)), "", ("0 rows will change", "; 2 already as asked.")),
    ],
)  # fmt: skip
def test_the_summary_says_what_changes_and_what_is_left(plan, target, sentence):
    """Counts are pluralised; a move or an add names its target; a restore its statuses."""
    assert plan.summary(target) == sentence


@pytest.mark.django_db
def test_the_review_carries_the_selection_and_what_was_reviewed_hidden(client_as, project):
    """Ids, action, category, count, fingerprint and the list page, rendered from BulkForm."""
    moved = [
        memory_create(project=project, category="OPS_RULES", content=f"Rule {i}.", actor="agent")
        for i in range(2)
    ]
    ids = [m.pk for m in moved]
    response = client_as("editor").post(
        reverse("memories:bulk"),
        {"ids": ids, "action": "move", "category": "ENV_STATE", "next": "/memories/?page=2"},
    )
    plan = bulk_plan(action="move", memories=moved, category="ENV_STATE")
    assertContains(response, "<strong>2 rows will change</strong> (moved to ENV_STATE).", html=True)
    carried = [
        ("ids", str(ids[0])), ("ids", str(ids[1])), ("action", "move"), ("category", "ENV_STATE"),
        ("expected", "2"), ("fingerprint", plan.fingerprint()),
        ("next", "/memories/?page=2"),
    ]  # fmt: skip
    body = response.content.decode()
    for name, value in carried:  # once on the page
        assert len(find_all(body, "input", type="hidden", name=name, value=value)) == 1
    form = find(body, "form", method="post", action=reverse("memories:bulk"))
    hidden = [
        (attribute(field, "name"), attribute(field, "value"))
        for field in find_all(form, "input", type="hidden")
        if attribute(field, "name") not in ("csrfmiddlewaretoken", "composite")
    ]
    # An unsynced project's rows have no store revision to carry: the field is empty.
    assert sorted(hidden) == sorted([*carried, ("store_revisions", None)])  # and no other
    assertContains(response, '<input type="hidden" name="composite" id="id_composite">', html=True)
