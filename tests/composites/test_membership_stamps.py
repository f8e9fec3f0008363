"""Membership stamps: when a composite was made, when its members changed, when each joined."""

from datetime import UTC, datetime

import pytest

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.services import (
    composite_create,
    composite_cursor_advance,
    composite_delete,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
    composite_set_title,
)
from memadmin.core.clock import now_ms

pytestmark = pytest.mark.django_db

T = 1_700_000_000_000


@pytest.fixture
def made(steps):
    """A sequence of three steps made at T; two more steps stay outside it."""
    head, *rest = steps
    return composite_create(head=head, type="sequence", members=rest[:3], actor="agent", at_ms=T)


def joined(composite) -> dict[int, int]:
    return dict(composite.members.values_list("member_id", "joined_at"))


def test_a_new_composite_is_made_with_its_members(made, steps):
    """Its members joined when it was made; no membership change is recorded yet."""
    made.refresh_from_db()
    assert (made.made_at, made.members_changed_at) == (T, None)
    assert joined(made) == {step.pk: T for step in steps[1:4]}
    assert AuditEvent.objects.get(action="composite_created").changes["made_at"] == T


def test_the_stamps_default_to_now(steps):
    """Without a time given, the services stamp the current time."""
    before = now_ms()
    composite = composite_create(head=steps[0], type="theme", members=steps[1:2], actor="agent")
    composite_member_add(composite=composite, members=[steps[2]], actor="agent")
    after = now_ms()
    composite.refresh_from_db()
    assert before <= composite.made_at <= composite.members_changed_at <= after
    assert joined(composite)[steps[2].pk] == composite.members_changed_at


def test_adding_stamps_the_new_members_and_the_composite(made, steps):
    """Only the added member gets the new time; the event carries the stamp."""
    composite_member_add(composite=made, members=[steps[4]], actor="agent", at_ms=T + 5)
    made.refresh_from_db()
    assert made.members_changed_at == T + 5
    assert joined(made) == {**{step.pk: T for step in steps[1:4]}, steps[4].pk: T + 5}
    event = AuditEvent.objects.get(action="composite_member_added")
    assert event.changes["members_changed_at"] == [None, T + 5]


@pytest.mark.parametrize(
    ("change", "action"),
    [
        (
            lambda c, s, at: composite_member_remove(
                composite=c, member=s[2], actor="agent", at_ms=at
            ),
            "composite_member_removed",
        ),
        (
            lambda c, s, at: composite_member_move(
                composite=c, member=s[3], position=0, actor="agent", at_ms=at
            ),
            "composite_member_moved",
        ),
    ],
    ids=["remove", "move"],
)
def test_removing_and_moving_stamp_the_composite(made, steps, change, action):
    """A member leaving or moving is a membership change at the given time."""
    change(made, steps, T + 7)
    made.refresh_from_db()
    assert made.members_changed_at == T + 7
    assert AuditEvent.objects.get(action=action).changes["members_changed_at"] == [None, T + 7]


def test_the_stamp_never_goes_back(made, steps):
    """A change given an earlier time than the last one keeps the last one's time."""
    composite_member_add(composite=made, members=[steps[4]], actor="agent", at_ms=T + 9)
    composite_member_remove(composite=made, member=steps[1], actor="agent", at_ms=T + 3)
    made.refresh_from_db()
    assert made.members_changed_at == T + 9


def test_other_changes_leave_the_membership_stamp_alone(made, steps):
    """A move to the same place, a new title or a cursor step changes no membership."""
    composite_member_move(composite=made, member=steps[1], position=0, actor="agent", at_ms=T + 1)
    composite_set_title(composite=made, title="Deploy", actor="agent")
    composite_cursor_advance(composite=made, actor="agent")
    made.refresh_from_db()
    assert made.members_changed_at is None


def test_a_deletion_is_stamped_on_the_history_row_recording_it(made):
    """The composite is gone; its deletion's history row keeps when it happened."""
    composite_delete(composite=made, actor="agent", at_ms=T + 11)
    assert not Composite.objects.exists()
    deletion = Composite.history.get(history_type="-")
    assert (deletion.made_at, deletion.members_changed_at) == (T, T + 11)
    event = AuditEvent.objects.get(action="composite_deleted")
    assert event.changes["members_changed_at"] == [None, T + 11]


def test_rows_written_outside_the_services_get_the_time_of_writing(made, steps):
    """A member row made directly (a bulk import, a merge's repointing) is stamped now."""
    before = now_ms()
    row = CompositeMember.objects.create(composite=made, member=steps[5], position=3)
    assert before <= row.joined_at <= now_ms()


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_stamps_from_what_was_recorded(steps):
    """Composites stored before the stamps get them from their creation and audit trail."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    head, *rest = steps
    kept = composite_create(head=head, type="sequence", members=rest[:2], actor="agent")
    composite_member_add(composite=kept, members=[rest[2]], actor="agent")
    composite_member_move(composite=kept, member=rest[2], position=0, actor="agent")
    gone = composite_create(head=rest[3], type="theme", members=[rest[4]], actor="agent")
    composite_delete(composite=gone, actor="agent")

    made, added, moved, deleted = (datetime(2025, 1, day, 12, tzinfo=UTC) for day in (1, 2, 3, 4))
    before = [("composites", "0005_reference_set_is_frozen")]
    executor = MigrationExecutor(connection)
    leaf = executor.loader.graph.leaf_nodes()  # every app: a backward step may take others along
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        old.get_model("composites", "Composite").objects.filter(pk=kept.pk).update(created_at=made)
        old.get_model("composites", "HistoricalComposite").objects.filter(history_type="-").update(
            history_date=deleted
        )
        events = AuditEvent.objects.filter(object_type="composite", object_id=str(kept.pk))
        events.filter(action="composite_member_added").update(created_at=added)
        events.filter(action="composite_member_moved").update(created_at=moved)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(leaf)

    kept = Composite.objects.get(pk=kept.pk)
    assert (kept.made_at, kept.members_changed_at) == (ms(made), ms(moved))
    assert joined(kept) == {rest[0].pk: ms(made), rest[1].pk: ms(made), rest[2].pk: ms(added)}
    deletion = Composite.history.get(history_type="-")
    assert deletion.members_changed_at == ms(deleted)
    assert not CompositeMember.history.filter(joined_at__isnull=True).exists()
