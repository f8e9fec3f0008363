"""Frozen reference sets: the snapshot, its immutability, drift and the #449 export (both engines)."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import ReferenceSet
from memadmin.composites.reference_services import reference_set_freeze
from memadmin.composites.selectors import reference_set_drift, reference_set_export
from memadmin.composites.services import (
    composite_create,
    composite_delete,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
)
from memadmin.core.hashing import content_digest
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from tests.html_tree import field_error, find, submitted

pytestmark = pytest.mark.django_db


@pytest.fixture
def sequence(steps):
    return composite_create(head=steps[0], type="sequence", members=steps[1:4], actor="agent")


def test_freeze_records_ids_order_digests_and_time(sequence, steps):
    """A snapshot lists the head then the members, each with the digest of its text."""
    frozen = reference_set_freeze(composite=sequence, actor="agent", at_ms=1_700_000_000_000)
    assert [item["id"] for item in frozen.items] == [m.pk for m in steps[:4]]
    assert [item["role"] for item in frozen.items] == ["head", "member", "member", "member"]
    assert frozen.items[1]["digest"] == content_digest(steps[1].content)
    assert frozen.frozen_at == 1_700_000_000_000
    assert frozen.frozen_by == "agent"
    assert frozen.ref.startswith("rs-")
    assert AuditEvent.objects.get(action="reference_set_frozen").changes["ref"] == frozen.ref


def test_export_has_upstreams_delegation_shape(sequence, steps):
    """The export is {"memory": {"prefetch_ids": [...], "mode": "frozen"}, "snapshot_ref"}."""
    frozen = reference_set_freeze(composite=sequence, actor="agent")
    assert reference_set_export(frozen) == {
        "memory": {"prefetch_ids": [str(m.display_id) for m in steps[:4]], "mode": "frozen"},
        "snapshot_ref": frozen.ref,
    }


def test_export_uses_the_ids_the_agent_sees(sequence, steps):
    """A synced memory is named by its upstream id."""
    Memory.objects.filter(pk=steps[1].pk).update(upstream_id=9001)
    frozen = reference_set_freeze(composite=sequence, actor="agent")
    assert reference_set_export(frozen)["memory"]["prefetch_ids"][1] == "9001"


def test_the_database_refuses_to_change_a_snapshot(sequence):
    """A frozen row cannot be updated, not even by a raw queryset update."""
    frozen = reference_set_freeze(composite=sequence, actor="agent")
    for change in ({"note": "edited"}, {"items": []}, {"cursor": 2}):
        with pytest.raises(IntegrityError), transaction.atomic():
            ReferenceSet.objects.filter(pk=frozen.pk).update(**change)
    frozen.refresh_from_db()
    assert frozen.note == "" and len(frozen.items) == 4


def test_a_snapshot_outlives_its_composite(sequence):
    """Deleting the composite keeps the snapshot; the drift shows everything removed."""
    frozen = reference_set_freeze(composite=sequence, actor="agent")
    composite_delete(composite=sequence, actor="agent")
    frozen.refresh_from_db()
    assert frozen.composite_id is None
    assert all("removed" in row.changes for row in reference_set_drift(frozen))


def test_an_overlong_note_is_refused(sequence):
    """Notes are bounded."""
    with pytest.raises(ValidationError, match="at most"):
        reference_set_freeze(composite=sequence, actor="agent", note="x" * 2001)
    assert not ReferenceSet.objects.exists()


def test_fresh_snapshot_has_not_drifted(sequence):
    """Right after freezing, every row is unchanged."""
    frozen = reference_set_freeze(composite=sequence, actor="agent")
    assert all(row.unchanged for row in reference_set_drift(frozen))


def test_drift_shows_edits_moves_removals_and_additions(sequence, steps):
    """Each live change since the snapshot is named on its row."""
    frozen = reference_set_freeze(composite=sequence, actor="agent")
    memory_update(memory=steps[1], content="Step one, rewritten.", actor="agent")
    composite_member_move(composite=sequence, member=steps[3], position=0, actor="agent")
    composite_member_remove(composite=sequence, member=steps[2], actor="agent")
    composite_member_add(composite=sequence, members=[steps[5]], actor="agent")
    rows = {row.id: row for row in reference_set_drift(frozen)}
    assert rows[steps[0].pk].changes == ()
    assert rows[steps[1].pk].changes == ("moved", "edited")
    assert rows[steps[2].pk].changes == ("removed",)
    assert rows[steps[3].pk].changes == ("moved",)
    assert rows[steps[5].pk].changes == ("added",)


def test_drift_reads_in_constant_queries(sequence, steps, django_assert_max_num_queries):
    """The drift view costs the same few queries however large the composite."""
    composite_member_add(composite=sequence, members=steps[4:], actor="agent")
    frozen = ReferenceSet.objects.get(pk=reference_set_freeze(composite=sequence, actor="agent").pk)
    with django_assert_max_num_queries(4):
        reference_set_drift(frozen)


@pytest.mark.parametrize("note", ["x" * 2001, "a NUL \x00 byte"])
def test_a_note_the_form_refuses_freezes_nothing_and_keeps_the_note(client_as, sequence, note):
    """The freeze form's note is checked before anything is made: 400, the page, the note."""
    response = client_as("editor").post(f"/composites/{sequence.pk}/freeze/", {"note": note})
    assert response.status_code == 400
    body = response.content.decode()
    form = find(body, "form", method="post", action=f"/composites/{sequence.pk}/freeze/")
    error = field_error(body, "id_note")
    if len(note) > 2000:
        assert error == "A note holds at most 2000 characters."
        assert dict(submitted(form))["note"] == note  # what was typed, to shorten, not retype
    assert not ReferenceSet.objects.exists()
    assert not AuditEvent.objects.filter(action="reference_set_frozen").exists()
