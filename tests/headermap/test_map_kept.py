"""A process keeps a project's map while the store stands still, and reads it again after."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.core.tokens import HeuristicCounter
from memadmin.headermap.selectors import header_map
from memadmin.memories.services import memory_create, memory_update

pytestmark = pytest.mark.django_db
COUNT = HeuristicCounter().count


def test_the_map_is_kept_until_a_write_and_its_totals_follow_the_write(project):
    """Shown again, the map costs one query and reads no text; an edit shows in the totals."""
    memory = memory_create(project=project, category="OPS_RULES", content="Short.", actor="agent")
    first = header_map(project)
    with CaptureQueriesContext(connection) as again:
        assert header_map(project) is first
    assert len(again) == 1 and "content" not in again.captured_queries[0]["sql"]
    longer = "A much longer text than before, 🚀 included."
    memory_update(memory=memory, actor="agent", content=longer)
    tree = header_map(project)
    assert tree is not first and tree.summary()["unreached_tokens"] == COUNT(longer)
    assert tree.unreached()[0].content == longer
