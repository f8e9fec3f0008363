"""Composite services: the star-topology rules, contiguous positions and the cursor (both engines)."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.reference_services import reference_set_freeze
from memadmin.composites.services import (
    CompositeChanged,
    composite_create,
    composite_cursor_advance,
    composite_cursor_back,
    composite_cursor_set,
    composite_delete,
    composite_fingerprint,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
    composite_set_title,
    composite_set_type,
)
from memadmin.memories.services import memory_update

pytestmark = pytest.mark.django_db


def members_of(composite):
    return list(
        CompositeMember.objects.filter(composite=composite)
        .order_by("position")
        .values_list("member_id", "position")
    )


def ids(memories):
    return [memory.pk for memory in memories]


def assert_contiguous(composite):
    positions = [position for _, position in members_of(composite)]
    assert positions == list(range(len(positions)))


def test_create_writes_members_in_order_and_records_it(steps):
    """A new composite holds its members at 0..n-1 and its creation is in the history."""
    head, *rest = steps
    composite = composite_create(head=head, type="sequence", members=rest[:3], actor="agent")
    assert members_of(composite) == [(m.pk, i) for i, m in enumerate(rest[:3])]
    event = AuditEvent.objects.get(action="composite_created")
    assert event.changes["members"] == ids(rest[:3])
    assert composite.history.count() == 1
    assert CompositeMember.history.count() == 3


@pytest.mark.parametrize("type", ["sequence", "theme", "cause", "alternatives"])
def test_each_type_can_be_created(steps, type):
    """All four types of the closed enum are accepted."""
    composite = composite_create(head=steps[0], type=type, members=steps[1:2], actor="agent")
    assert composite.type == type


def test_unknown_type_is_refused(steps):
    """A type outside the enum is refused and nothing is written."""
    with pytest.raises(ValidationError, match="type is one of"):
        composite_create(head=steps[0], type="graph", actor="agent")
    assert not Composite.objects.exists()


def test_head_as_its_own_member_is_refused_on_create(steps):
    """The head is never a member of its own composite."""
    with pytest.raises(ValidationError, match="never its own member"):
        composite_create(head=steps[0], type="theme", members=[steps[1], steps[0]], actor="agent")
    assert not Composite.objects.exists()
    assert not AuditEvent.objects.filter(action="composite_created").exists()


def test_head_as_its_own_member_is_refused_on_add(steps):
    """Adding the head to its own composite is refused with a clear message."""
    composite = composite_create(head=steps[0], type="theme", members=steps[1:3], actor="agent")
    with pytest.raises(ValidationError) as refused:
        composite_member_add(composite=composite, members=[steps[0]], actor="agent")
    assert "never its own member" in refused.value.message_dict["member"][0]
    assert members_of(composite) == [(steps[1].pk, 0), (steps[2].pk, 1)]


def test_member_twice_is_refused(steps):
    """A memory appears once per composite, whether already in or listed twice."""
    composite = composite_create(head=steps[0], type="theme", members=steps[1:3], actor="agent")
    with pytest.raises(ValidationError, match="already a member"):
        composite_member_add(composite=composite, members=[steps[1]], actor="agent")
    with pytest.raises(ValidationError, match="already a member"):
        composite_member_add(composite=composite, members=[steps[3], steps[3]], actor="agent")
    assert len(members_of(composite)) == 2


def test_a_memory_heads_several_composites_and_belongs_to_many(steps):
    """Star topology: heads are not unique and membership is n:n."""
    head, a, b, c, *_ = steps
    composite_create(head=head, type="theme", members=[a, b], actor="agent")
    composite_create(head=head, type="cause", members=[a, c], actor="agent")
    composite_create(head=b, type="alternatives", members=[a], actor="agent")
    assert head.headed_composites.count() == 2
    assert a.memberships.count() == 3


def test_archived_head_is_refused(steps):
    """A composite cannot be created on, or edited under, an archived head."""
    memory_update(memory=steps[0], status="archived", actor="agent")
    steps[0].refresh_from_db()
    with pytest.raises(ValidationError, match="archived"):
        composite_create(head=steps[0], type="theme", actor="agent")
    assert not Composite.objects.exists()


def test_editing_under_a_head_archived_since_is_refused(steps):
    """Archiving the head later freezes the composite's edits until it is restored."""
    composite = composite_create(head=steps[0], type="theme", members=steps[1:2], actor="agent")
    memory_update(memory=steps[0], status="archived", actor="agent")
    with pytest.raises(ValidationError, match="archived"):
        composite_member_add(composite=composite, members=[steps[2]], actor="agent")
    with pytest.raises(ValidationError, match="archived"):
        composite_set_type(composite=composite, type="cause", actor="agent")
    assert members_of(composite) == [(steps[1].pk, 0)]


def test_archived_member_and_other_project_are_refused(steps, make_memories, make_project):
    """Members come from the head's project and are not archived."""
    composite = composite_create(head=steps[0], type="theme", actor="agent")
    memory_update(memory=steps[1], status="archived", actor="agent")
    with pytest.raises(ValidationError, match="archived"):
        composite_member_add(composite=composite, members=[steps[1]], actor="agent")
    elsewhere = make_memories(1, into=make_project("ops-six"))[0]
    with pytest.raises(ValidationError, match="another project"):
        composite_member_add(composite=composite, members=[elsewhere], actor="agent")


def test_add_inserts_at_a_position_and_keeps_positions_contiguous(steps):
    """Inserting in the middle shifts the members after it."""
    head, a, b, c, d, _ = steps
    composite = composite_create(head=head, type="sequence", members=[a, b], actor="agent")
    composite_member_add(composite=composite, members=[c, d], position=1, actor="agent")
    assert [m for m, _ in members_of(composite)] == ids([a, c, d, b])
    assert_contiguous(composite)


def test_add_at_a_position_outside_the_sequence_is_refused(steps):
    """A new member goes between 1 and n+1."""
    composite = composite_create(head=steps[0], type="sequence", members=steps[1:3], actor="agent")
    with pytest.raises(ValidationError, match="position"):
        composite_member_add(composite=composite, members=[steps[3]], position=5, actor="agent")
    assert len(members_of(composite)) == 2


def test_remove_closes_the_gap(steps):
    """Removing a member renumbers the rest 0..n-1 and records the change."""
    head, *rest = steps
    composite = composite_create(head=head, type="sequence", members=rest, actor="agent")
    composite_member_remove(composite=composite, member=rest[1], actor="agent")
    assert [m for m, _ in members_of(composite)] == ids([rest[0], *rest[2:]])
    assert_contiguous(composite)
    event = AuditEvent.objects.get(action="composite_member_removed")
    assert event.changes["removed"] == rest[1].pk


def test_removing_a_non_member_is_refused(steps):
    """Only a member can be removed."""
    composite = composite_create(head=steps[0], type="theme", members=steps[1:2], actor="agent")
    with pytest.raises(ValidationError, match="not a member"):
        composite_member_remove(composite=composite, member=steps[3], actor="agent")


@pytest.mark.parametrize(
    ("index", "to", "expected"),
    [
        (0, 4, [1, 2, 3, 4, 0]),
        (4, 0, [4, 0, 1, 2, 3]),
        (2, 3, [0, 1, 3, 2, 4]),
        (1, 0, [1, 0, 2, 3, 4]),
    ],
)
def test_move_reorders_and_keeps_positions_contiguous(steps, index, to, expected):
    """Moving a member shifts the others and leaves positions 0..n-1."""
    head, *rest = steps
    composite = composite_create(head=head, type="sequence", members=rest, actor="agent")
    composite_member_move(composite=composite, member=rest[index], position=to, actor="agent")
    assert [m for m, _ in members_of(composite)] == [rest[i].pk for i in expected]
    assert_contiguous(composite)


def test_move_outside_the_sequence_is_refused(steps):
    """A member's position stays between 1 and n."""
    composite = composite_create(head=steps[0], type="sequence", members=steps[1:4], actor="agent")
    with pytest.raises(ValidationError, match="between 1 and 3"):
        composite_member_move(composite=composite, member=steps[1], position=3, actor="agent")


def test_set_type_and_title_are_recorded(steps):
    """Changing the type or the title writes one audit event each."""
    composite = composite_create(head=steps[0], type="theme", members=steps[1:3], actor="agent")
    composite_set_type(composite=composite, type="sequence", actor="agent")
    composite_set_title(composite=composite, title="Release SOP", actor="agent")
    composite.refresh_from_db()
    assert (composite.type, composite.title) == ("sequence", "Release SOP")
    assert AuditEvent.objects.get(action="composite_type_changed").changes == {
        "type": ["theme", "sequence"]
    }


def test_a_composite_that_becomes_a_sequence_starts_at_its_first_step(steps):
    """A cursor left over from an earlier life as a sequence does not carry over."""
    composite = composite_create(head=steps[0], type="sequence", members=steps[1:4], actor="agent")
    composite_cursor_set(composite=composite, position=2, actor="agent")
    composite_set_type(composite=composite, type="theme", actor="agent")
    composite_set_type(composite=composite, type="sequence", actor="agent")
    composite.refresh_from_db()
    assert composite.cursor == 0


def test_the_cursor_reset_is_recorded_with_the_type_change(steps):
    """Becoming a sequence again records the cursor going back to step 1, in the same event."""
    composite = composite_create(head=steps[0], type="sequence", members=steps[1:4], actor="agent")
    composite_cursor_set(composite=composite, position=2, actor="agent")
    composite_set_type(composite=composite, type="theme", actor="agent")
    composite_set_type(composite=composite, type="sequence", actor="agent", reason="Steps again")
    event = AuditEvent.objects.filter(action="composite_type_changed").latest("id")
    assert (event.reason, event.changes) == (
        "Steps again",
        {"type": ["theme", "sequence"], "cursor": [2, 0]},
    )


def test_delete_refuses_a_composite_changed_since_it_was_confirmed(steps):
    """A fingerprint that no longer matches deletes nothing; the current one deletes."""
    composite = composite_create(head=steps[0], type="theme", members=steps[1:3], actor="agent")
    seen = composite_fingerprint(composite)
    composite_member_add(composite=composite, members=[steps[3]], actor="agent")
    events = AuditEvent.objects.count()
    with pytest.raises(CompositeChanged, match="Nothing was deleted"):
        composite_delete(composite=composite, actor="agent", expected_fingerprint=seen)
    assert CompositeMember.objects.filter(composite=composite).count() == 3
    assert AuditEvent.objects.count() == events
    current = composite_fingerprint(composite)
    assert current != seen
    composite_delete(composite=composite, actor="agent", expected_fingerprint=current)
    assert not Composite.objects.exists()


def test_delete_removes_members_but_not_memories(steps):
    """Deleting a composite leaves its memories in place."""
    composite = composite_create(head=steps[0], type="theme", members=steps[1:3], actor="agent")
    composite_delete(composite=composite, actor="agent")
    assert not Composite.objects.exists()
    assert not CompositeMember.objects.exists()
    assert AuditEvent.objects.get(action="composite_deleted").changes["members"] == ids(steps[1:3])


class TestCursor:
    @pytest.fixture
    def sequence(self, steps):
        return composite_create(head=steps[0], type="sequence", members=steps[1:], actor="agent")

    def test_advance_wraps_from_last_to_first(self, sequence):
        """Advancing past the last step comes back to the first (a rotation)."""
        composite_cursor_set(composite=sequence, position=4, actor="agent")
        composite_cursor_advance(composite=sequence, actor="agent")
        sequence.refresh_from_db()
        assert sequence.cursor == 0

    def test_back_wraps_from_first_to_last(self, sequence):
        """Going back from the first step lands on the last."""
        composite_cursor_back(composite=sequence, actor="agent")
        sequence.refresh_from_db()
        assert sequence.cursor == 4

    def test_set_outside_the_sequence_is_refused(self, sequence):
        """A cursor outside the sequence is refused and nothing is written."""
        for position in (-1, 5):
            with pytest.raises(ValidationError, match="outside"):
                composite_cursor_set(composite=sequence, position=position, actor="agent")
        sequence.refresh_from_db()
        assert sequence.cursor == 0
        assert not AuditEvent.objects.filter(action="composite_cursor_moved").exists()

    def test_only_a_sequence_has_a_cursor(self, steps):
        """A theme has no cursor to move."""
        theme = composite_create(head=steps[0], type="theme", members=steps[1:], actor="agent")
        with pytest.raises(ValidationError, match="Only a sequence"):
            composite_cursor_advance(composite=theme, actor="agent")

    def test_empty_sequence_has_no_cursor_to_move(self, steps):
        """With no member there is nowhere for the cursor to go."""
        empty = composite_create(head=steps[0], type="sequence", actor="agent")
        with pytest.raises(ValidationError, match="no member"):
            composite_cursor_advance(composite=empty, actor="agent")

    def test_cursor_follows_its_member_when_members_move(self, sequence, steps):
        """Reordering keeps the cursor on the same memory."""
        composite_cursor_set(composite=sequence, position=2, actor="agent")
        composite_member_move(composite=sequence, member=steps[3], position=0, actor="agent")
        sequence.refresh_from_db()
        assert sequence.cursor == 0
        composite_member_move(composite=sequence, member=steps[5], position=0, actor="agent")
        sequence.refresh_from_db()
        assert sequence.cursor == 1

    def test_removing_an_earlier_member_keeps_the_cursor_on_its_member(self, sequence, steps):
        """The cursor shifts down with its member."""
        composite_cursor_set(composite=sequence, position=3, actor="agent")
        composite_member_remove(composite=sequence, member=steps[1], actor="agent")
        sequence.refresh_from_db()
        assert members_of(sequence)[sequence.cursor][0] == steps[4].pk

    def test_removing_the_cursor_member_moves_to_the_next(self, sequence, steps):
        """The member that took its place gets the cursor."""
        composite_cursor_set(composite=sequence, position=1, actor="agent")
        composite_member_remove(composite=sequence, member=steps[2], actor="agent")
        sequence.refresh_from_db()
        assert sequence.cursor == 1
        assert members_of(sequence)[1][0] == steps[3].pk

    def test_removing_the_last_member_under_the_cursor_wraps(self, sequence, steps):
        """Removing the last step while the cursor is on it wraps the cursor to the first."""
        composite_cursor_set(composite=sequence, position=4, actor="agent")
        composite_member_remove(composite=sequence, member=steps[5], actor="agent")
        sequence.refresh_from_db()
        assert sequence.cursor == 0

    def test_removing_every_member_leaves_the_cursor_at_zero(self, sequence, steps):
        """An emptied sequence has its cursor at 0."""
        composite_cursor_set(composite=sequence, position=4, actor="agent")
        for memory in steps[1:]:
            composite_member_remove(composite=sequence, member=memory, actor="agent")
        sequence.refresh_from_db()
        assert sequence.cursor == 0


def test_cursor_title_and_freeze_are_refused_under_an_archived_head(steps):
    """Every change to a composite waits for its archived head to be restored."""
    composite = composite_create(head=steps[0], type="sequence", members=steps[1:3], actor="agent")
    memory_update(memory=steps[0], status="archived", actor="agent")
    for change in (
        lambda: composite_cursor_advance(composite=composite, actor="agent"),
        lambda: composite_set_title(composite=composite, title="New", actor="agent"),
        lambda: reference_set_freeze(composite=composite, actor="agent"),
        lambda: composite_member_remove(composite=composite, member=steps[1], actor="agent"),
        lambda: composite_member_move(
            composite=composite, member=steps[1], position=1, actor="agent"
        ),
    ):
        with pytest.raises(ValidationError, match="archived"):
            change()
    composite.refresh_from_db()
    assert (composite.cursor, composite.title) == (0, "")
