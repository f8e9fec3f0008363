"""The review's sentence is `BulkPlan.summary`: what changes, where to, and what is left."""

import pytest

from memadmin.memories.bulk_services import BulkPlan
from memadmin.memories.models import Memory


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
