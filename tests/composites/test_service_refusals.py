"""Refusals of the composite services that no other test reached; each writes nothing."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import (
    TITLE_MAX_CHARS,
    CompositeChanged,
    composite_create,
    composite_delete,
    composite_member_add,
    composite_set_title,
)
from memadmin.memories.merge_services import memory_merge, memory_merge_undo
from memadmin.memories.models import Memory

pytestmark = pytest.mark.django_db


def test_adding_no_members_is_refused(make_memories):
    """Adding an empty selection to a composite is refused, and nothing is recorded."""
    head, member = make_memories(2)
    composite = composite_create(head=head, type="theme", members=[member], actor="agent")
    before = AuditEvent.objects.count()
    with pytest.raises(ValidationError, match="Choose at least one memory to add"):
        composite_member_add(composite=composite, members=[], actor="agent")
    assert AuditEvent.objects.count() == before


def test_a_title_may_be_as_long_as_the_limit_and_no_longer(make_memories):
    """A title of 200 characters is kept; 201 are refused, on creation and on rename."""
    head, other = make_memories(2)
    composite = composite_create(
        head=head, type="theme", title="t" * TITLE_MAX_CHARS, actor="agent"
    )
    assert composite.title == "t" * TITLE_MAX_CHARS
    too_long = "t" * (TITLE_MAX_CHARS + 1)
    with pytest.raises(ValidationError, match=f"at most {TITLE_MAX_CHARS} characters"):
        composite_set_title(composite=composite, title=too_long, actor="agent")
    with pytest.raises(ValidationError, match=f"at most {TITLE_MAX_CHARS} characters"):
        composite_create(head=other, type="theme", title=too_long, actor="agent")
    composite.refresh_from_db()
    assert composite.title == "t" * TITLE_MAX_CHARS
    assert Composite.objects.count() == 1


def test_a_rename_records_the_old_and_new_title(make_memories):
    """A rename is recorded as `composite_renamed` with both titles."""
    (head,) = make_memories(1)
    composite = composite_create(head=head, type="theme", title="Old", actor="agent")
    composite_set_title(composite=composite, title="  New  ", actor="agent", reason="clearer")
    event = AuditEvent.objects.latest("pk")
    assert (event.action, event.object_id, event.project_id, event.reason) == (
        "composite_renamed",
        str(composite.pk),
        composite.project_id,
        "clearer",
    )
    assert event.changes == {"title": ["Old", "New"]}


def test_a_merge_is_not_undone_once_a_composite_it_repointed_was_deleted(make_memories):
    """Undoing a merge whose repointed composite is gone is refused, naming the composite."""
    head, first, second = make_memories(3)
    composite = composite_create(head=head, type="theme", members=[first], actor="agent")
    result = memory_merge(memories=[first, second], content="Merged fact.", actor="agent")
    composite_delete(composite=composite, actor="agent")
    with pytest.raises(ValidationError, match=f"composite {composite.pk} was deleted"):
        memory_merge_undo(result=result, actor="agent")
    assert Memory.objects.filter(pk=result.pk).exists()
    assert Memory.objects.filter(superseded_by=result).count() == 2


# --- the audit events' fields, every one


def test_a_creation_records_type_head_members_title_and_time(make_memories):
    """`composite_created` records every field of the new composite, in the head's category."""
    head, first, second = make_memories(3)
    composite = composite_create(
        head=head,
        type="sequence",
        members=[second, first],
        title=" Release ",
        actor="agent",
        reason="steps",
        at_ms=1_000,
    )
    event = AuditEvent.objects.get(action="composite_created")
    assert (event.object_id, event.project_id, event.category, event.reason) == (
        str(composite.pk),
        head.project_id,
        "OPS_RULES",
        "steps",
    )
    assert event.changes == {
        "type": "sequence",
        "head": head.pk,
        "members": [second.pk, first.pk],
        "title": "Release",
        "made_at": 1_000,
    }


def test_a_deletion_records_what_the_composite_was(make_memories):
    """`composite_deleted` keeps the type, head, members, cursor, title and the stamps."""
    head, first, second = make_memories(3)
    composite = composite_create(
        head=head, type="theme", members=[first, second], title="T", actor="agent", at_ms=1_000
    )
    composite_delete(composite=composite, actor="agent", reason="unused", at_ms=2_000)
    event = AuditEvent.objects.get(action="composite_deleted")
    assert (event.object_id, event.reason) == (str(composite.pk), "unused")
    assert event.changes == {
        "type": "theme",
        "head": head.pk,
        "members": [first.pk, second.pk],
        "cursor": 0,
        "title": "T",
        "members_changed_at": [None, 2_000],  # a new composite has no stamp yet
    }


def test_a_deletion_of_a_composite_changed_since_it_was_shown_says_so(make_memories):
    """A stale confirmation is refused with the sentence the page shows, deleting nothing."""
    head, member = make_memories(2)
    composite = composite_create(head=head, type="theme", members=[member], actor="agent")
    with pytest.raises(CompositeChanged) as refused:
        composite_delete(composite=composite, actor="agent", expected_fingerprint="0" * 32)
    assert refused.value.messages == [
        "Someone else changed this composite since you opened this page (its type, title, "
        "head, members or cursor). Nothing was deleted: check it as it is now and confirm again."
    ]
    assert Composite.objects.filter(pk=composite.pk).exists()
