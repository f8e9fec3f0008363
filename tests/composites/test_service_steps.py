"""The steps every composite service shares: lock, refuse, write, record (both engines)."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.composites import member_services, services
from memadmin.composites.models import Composite
from memadmin.composites.services import (
    composite_cursor_advance,
    composite_cursor_back,
    composite_cursor_set,
    composite_delete,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
    composite_set_title,
    composite_set_type,
)
from memadmin.memories.services import memory_update

pytestmark = pytest.mark.django_db


@pytest.fixture
def sequence(steps):
    """A sequence titled "Runbook" of four steps, its cursor on the third."""
    composite = services.composite_create(
        head=steps[0], type="sequence", members=steps[1:5], title="Runbook", actor="agent"
    )
    return composite_cursor_set(composite=composite, position=2, actor="agent")


def written(composite) -> tuple[int, int]:
    """Return how many audit events and history rows the composite has."""
    return (
        AuditEvent.objects.filter(object_id=str(composite.pk)).count(),
        Composite.history.filter(id=composite.pk).count(),
    )


@pytest.mark.parametrize(
    "unchanged",
    [
        lambda c, steps: composite_set_type(composite=c, type="sequence", actor="agent"),
        lambda c, steps: composite_set_title(composite=c, title="  Runbook ", actor="agent"),
        lambda c, steps: composite_cursor_set(composite=c, position=2, actor="agent"),
        lambda c, steps: composite_member_move(
            composite=c, member=steps[2], position=1, actor="agent"
        ),
    ],
    ids=["type", "title", "cursor", "move"],
)
def test_a_change_to_what_is_already_there_writes_nothing(sequence, steps, unchanged):
    """Asking for the type, title, cursor or place a composite already has records nothing."""
    before = written(sequence)
    unchanged(sequence, steps)
    assert written(sequence) == before


@pytest.mark.parametrize(
    ("change", "action", "changes"),
    [
        (
            lambda c, by: composite_set_type(composite=c, type="theme", **by),
            "composite_type_changed",
            {"type": ["sequence", "theme"]},
        ),
        (
            lambda c, by: composite_set_title(composite=c, title=" SOP ", **by),
            "composite_renamed",
            {"title": ["Runbook", "SOP"]},
        ),
        (
            lambda c, by: composite_cursor_set(composite=c, position=0, **by),
            "composite_cursor_moved",
            {"cursor": [2, 0]},
        ),
        (
            lambda c, by: composite_cursor_advance(composite=c, **by),
            "composite_cursor_moved",
            {"cursor": [2, 3]},
        ),
        (
            lambda c, by: composite_cursor_back(composite=c, **by),
            "composite_cursor_moved",
            {"cursor": [2, 1]},
        ),
    ],
    ids=["type", "title", "cursor-set", "advance", "back"],
)
def test_each_change_is_one_event_with_its_actor_reason_and_values(
    sequence, steps, change, action, changes
):
    """A change saves the composite once and records [old, new] as its actor, with the why."""
    before_events, before_rows = written(sequence)
    change(sequence, {"actor": "historian", "reason": "Tidy up."})
    assert written(sequence) == (before_events + 1, before_rows + 1)
    event = AuditEvent.objects.latest("id")
    assert (event.action, event.actor_label, event.reason, event.changes) == (
        action,
        "historian",
        "Tidy up.",
        changes,
    )
    assert event.category == steps[0].category
    assert event.project_id == sequence.project_id


def test_becoming_a_sequence_puts_the_cursor_on_step_one_in_the_same_save(sequence):
    """The cursor comes back to step 1 with the type, in one history row and one event."""
    composite_set_type(composite=sequence, type="theme", actor="agent")
    before_events, before_rows = written(sequence)
    composite_set_type(composite=sequence, type="sequence", actor="agent")
    sequence.refresh_from_db()
    assert (sequence.type, sequence.cursor) == ("sequence", 0)
    assert written(sequence) == (before_events + 1, before_rows + 1)


def test_type_and_members_wait_for_an_archived_head_but_deletion_does_not(sequence, steps):
    """Under an archived head the type and the members stay; the composite can still go."""
    memory_update(memory=steps[0], status="archived", actor="agent")
    before = written(sequence)
    for change in (
        lambda: composite_set_type(composite=sequence, type="theme", actor="agent"),
        lambda: composite_member_add(composite=sequence, members=[steps[5]], actor="agent"),
    ):
        with pytest.raises(ValidationError, match="archived"):
            change()
    assert written(sequence) == before
    composite_delete(composite=sequence, actor="agent")
    assert not Composite.objects.filter(pk=sequence.pk).exists()


def test_a_refused_member_change_writes_nothing(sequence, steps):
    """A removal of a non-member or a move off the end leaves no stamp, event or row."""
    before = written(sequence)
    with pytest.raises(ValidationError, match="not a member"):
        composite_member_remove(composite=sequence, member=steps[5], actor="agent")
    with pytest.raises(ValidationError, match="between 1 and 4"):
        composite_member_move(composite=sequence, member=steps[1], position=4, actor="agent")
    sequence.refresh_from_db()
    assert sequence.members_changed_at is None
    assert written(sequence) == before


def test_other_apps_import_every_composite_write_from_services():
    """The member services are the same functions under `composites.services`."""
    for name in ("composite_member_add", "composite_member_move", "composite_member_remove"):
        assert getattr(services, name) is getattr(member_services, name)
    assert all(hasattr(services, name) for name in services.__all__)
