"""Each memory's stored size follows its text on every write path, on both engines."""

import pytest

from memadmin.core.tokens import HeuristicCounter
from memadmin.interop.sync_services import context_db_sync
from memadmin.memories.models import Memory, MemorySize
from memadmin.memories.services import memory_create, memory_update
from tests.upstream_store import build_store, make_row

pytestmark = pytest.mark.django_db
COUNT = HeuristicCounter().count


def sizes() -> dict[int, int]:
    return dict(MemorySize.objects.values_list("memory_id", "tokens"))


def expected() -> dict[int, int]:
    return {pk: COUNT(text) for pk, text in Memory.objects.values_list("pk", "content")}


def test_a_size_is_kept_through_create_edit_and_delete(project):
    """Made, edited (astral characters count two UTF-16 units) and deleted: always in step."""
    memory = memory_create(project=project, category="OPS_RULES", content="Short.", actor="agent")
    assert sizes() == expected() == {memory.pk: COUNT("Short.")}
    text = "Ship it 🚀🚀🚀 on the 東京 cluster, " + "x" * 40
    memory_update(memory=memory, actor="agent", content=text)
    assert sizes()[memory.pk] == COUNT(text) == (2 * (len(text) + 3) + 6) // 7
    Memory.objects.filter(pk=memory.pk).delete()
    assert sizes() == {}


def test_rows_written_in_bulk_and_by_a_sync_are_sized(project, tmp_path):
    """A bulk insert and a sync's own bulk statements leave no memory without its size."""
    Memory.objects.bulk_create(
        [
            Memory(
                project=project,
                category="OPS_RULES",
                content=f"Bulk {n} ✓",
                normalized_hash=f"{n:032x}",
                first_seen_at=1,
                created_at=1,
                updated_at=1,
                last_seen_at=1,
            )
            for n in range(5)
        ]
    )
    context_db_sync(path=build_store(tmp_path / "context.db", rows=[make_row(content="🧭 north")]))
    assert Memory.objects.count() == 6
    assert sizes() == expected()
