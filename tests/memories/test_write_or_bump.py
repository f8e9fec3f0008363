"""memory_write_or_bump: upstream's write, where an exact duplicate only bumps its counts."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_write_or_bump

pytestmark = pytest.mark.django_db


def test_a_new_fact_is_written(project):
    """A fact not yet stored becomes a memory with seen_count 1."""
    memory, created = memory_write_or_bump(
        project=project, category="OPS_RULES", content="Drain first.", actor="historian",
        source_type=Memory.SourceType.HISTORIAN, at_ms=1_000,
    )  # fmt: skip
    assert created
    assert (memory.seen_count, memory.last_seen_at, memory.source_type) == (1, 1_000, "historian")


def test_an_exact_duplicate_only_bumps_seen_count_and_last_seen_at(project):
    """Writing the same fact again (modulo case and spaces) bumps the first; nothing else."""
    first, _ = memory_write_or_bump(
        project=project, category="OPS_RULES", content="Drain first.", actor="historian",
        at_ms=1_000,
    )  # fmt: skip
    again, created = memory_write_or_bump(
        project=project, category="OPS_RULES", content="  DRAIN   first. ", actor="historian",
        at_ms=5_000,
    )  # fmt: skip
    assert not created
    assert again.pk == first.pk
    again.refresh_from_db()
    assert (again.seen_count, again.last_seen_at) == (2, 5_000)
    assert (again.content, again.updated_at) == ("Drain first.", 1_000)
    assert Memory.objects.count() == 1
    event = AuditEvent.objects.get(action="seen_again")
    assert event.changes == {"seen_count": [1, 2]}


def test_the_same_text_in_another_category_is_a_new_memory(project):
    """Dedup is per category."""
    memory_write_or_bump(project=project, category="OPS_RULES", content="X.", actor="historian")
    _, created = memory_write_or_bump(
        project=project, category="RESEARCH", content="X.", actor="historian"
    )
    assert created


def test_legacy_and_unknown_categories_take_no_writes(mc_project):
    """Only writable categories take writes, as upstream's tool enum says."""
    for category in ("USER_DIRECTIVES", "NOPE"):
        with pytest.raises(ValidationError) as refused:
            memory_write_or_bump(
                project=mc_project, category=category, content="X.", actor="historian"
            )
        assert "takes no new memories" in refused.value.message_dict["category"][0]
    assert not Memory.objects.exists()
