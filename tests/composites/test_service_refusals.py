"""Refusals of the composite services that no other test reached; each writes nothing."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.composites.member_services import composite_member_move
from memadmin.composites.models import Composite
from memadmin.composites.positions import member_ids, member_rows
from memadmin.composites.reference_services import NOTE_MAX_CHARS, reference_set_freeze
from memadmin.composites.services import (
    TITLE_MAX_CHARS,
    CompositeChanged,
    composite_create,
    composite_delete,
    composite_member_add,
    composite_set_title,
)
from memadmin.curation.merge_services import memory_merge, memory_merge_undo
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


# --- merging repoints composites, undoing puts them back (services of this app)


def members(composite):
    return member_ids(member_rows(Composite.objects.get(pk=composite.pk)))


def test_merging_two_members_leaves_one_member_for_the_result(make_memories):
    """Two members merged become one member, where the first was; the others stay as they are."""
    head, first, second, other = make_memories(4)
    composite = composite_create(
        head=head, type="sequence", members=[first, other, second], actor="agent"
    )
    result = memory_merge(memories=[first, second], content="Both facts.", actor="agent")
    assert members(composite) == [result.pk, other.pk]
    event = AuditEvent.objects.get(action="composite_repointed")
    assert (event.object_id, event.project_id) == (str(composite.pk), composite.project_id)
    assert event.changes["merged_into"] == result.pk
    assert event.changes["before"]["members"] == [first.pk, other.pk, second.pk]
    assert event.changes["after"]["members"] == [result.pk, other.pk]


def test_undoing_a_merge_puts_back_the_head_and_members(make_memories):
    """A merge of a composite's head and a member is undone with both back in their places."""
    head, first, other = make_memories(3)
    composite = composite_create(head=head, type="theme", members=[first, other], actor="agent")
    result = memory_merge(memories=[head, first], content="Head and first.", actor="agent")
    moved = Composite.objects.get(pk=composite.pk)
    assert (moved.head_id, members(moved)) == (result.pk, [other.pk])
    memory_merge_undo(result=result, actor="agent")
    back = Composite.objects.get(pk=composite.pk)
    assert (back.head_id, members(back)) == (head.pk, [first.pk, other.pk])


def test_undoing_a_merge_is_refused_once_a_repointed_composite_was_edited(make_memories):
    """Every composite that changed since the merge is named, and nothing is undone."""
    head, first, second, extra = make_memories(4)
    one = composite_create(head=head, type="theme", members=[first], actor="agent")
    two = composite_create(head=extra, type="theme", members=[second], actor="agent")
    result = memory_merge(memories=[first, second], content="Merged.", actor="agent")
    for composite in (one, two):
        composite_member_add(composite=composite, members=[make_memories(1)[0]], actor="agent")
    with pytest.raises(ValidationError) as refused:
        memory_merge_undo(result=result, actor="agent")
    assert refused.value.messages == [
        "The composites changed since the merge, so it cannot be undone automatically: "
        f"composite {one.pk} was edited; composite {two.pk} was edited."
    ]
    assert Memory.objects.filter(pk=result.pk).exists()


def test_a_member_added_past_the_end_is_refused_naming_the_range(make_memories):
    """New members go at a position from 1 to one past the last member."""
    head, member, new = make_memories(3)
    composite = composite_create(head=head, type="sequence", members=[member], actor="agent")
    with pytest.raises(ValidationError) as refused:
        composite_member_add(composite=composite, members=[new], position=5, actor="agent")
    assert refused.value.message_dict == {
        "position": ["A new member goes at a position from 1 to 2."]
    }


def test_a_frozen_snapshot_is_recorded_and_named_by_what_it_holds(make_memories):
    """`reference_set_frozen` names the composite, the ref and the ids, in the head's category;
    two composites of the same memories frozen at one moment get different refs."""
    head, member = make_memories(2)
    composite = composite_create(head=head, type="theme", members=[member], actor="agent")
    twin = composite_create(head=head, type="cause", members=[member], actor="agent")
    frozen = reference_set_freeze(composite=composite, actor="agent", note=" n ", at_ms=5)
    event = AuditEvent.objects.get(action="reference_set_frozen")
    assert (event.project_id, event.category) == (composite.project_id, "OPS_RULES")
    assert event.changes == {
        "composite": composite.pk,
        "ref": frozen.ref,
        "ids": [head.pk, member.pk],
    }
    assert frozen.note == "n"
    assert reference_set_freeze(composite=twin, actor="agent", at_ms=5).ref != frozen.ref


def test_a_snapshot_note_over_the_limit_is_refused_on_the_note_field(make_memories):
    """A note longer than the limit is refused on its field."""
    (head,) = make_memories(1)
    composite = composite_create(head=head, type="theme", actor="agent")
    with pytest.raises(ValidationError) as refused:
        reference_set_freeze(composite=composite, actor="agent", note="x" * (NOTE_MAX_CHARS + 1))
    assert list(refused.value.message_dict) == ["note"]


def test_a_move_without_a_reason_records_none(make_memories):
    """Moving a member without giving a reason records an empty reason, not a made-up one."""
    head, first, second = make_memories(3)
    composite = composite_create(head=head, type="sequence", members=[first, second], actor="agent")
    composite_member_move(composite=composite, member=second, position=0, actor="agent")
    assert AuditEvent.objects.latest("pk").reason == ""
    assert members(composite) == [second.pk, first.pk]
