"""Change ids: an audit event is paired with exactly the versions its change wrote."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memadmin.audit.context import acting, current, current_change_id
from memadmin.audit.models import AuditEvent
from memadmin.curation.bulk_services import bulk_apply
from memadmin.history.timeline import memory_timeline
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update

pytestmark = pytest.mark.django_db


def entry_of(memory, kind: str):
    """Return the memory's one timeline entry of `kind`."""
    (entry,) = [entry for entry in memory_timeline(memory) if entry.kind == kind]
    return entry


def pin_times(memory, at) -> None:
    """Date every version of the memory and every event about it at the same instant.

    Then time says nothing about which event goes with which version: the worst case of
    two writes by one actor within the same millisecond, made deterministic.
    """
    Memory.history.filter(id=memory.pk).update(history_date=at)
    AuditEvent.objects.filter(object_type="memory", object_id=str(memory.pk)).update(created_at=at)


def forget_change_ids(memory) -> None:
    """Make the memory's versions and events look like rows from before change ids."""
    Memory.history.filter(id=memory.pk).update(history_change_id=None)
    AuditEvent.objects.filter(object_type="memory", object_id=str(memory.pk)).update(change_id=None)


def archive(memory, *, reason: str) -> None:
    memory_update(memory=memory, actor="agent", status=Memory.Status.ARCHIVED, reason=reason)


def test_an_archive_right_after_creation_gives_its_reason_only_to_the_archive(make_memory):
    """Created then archived by the same actor at once: the why shows on the archive only."""
    memory = make_memory("Deploy on Fridays.")
    archive(memory, reason="we stopped deploying on Fridays")
    pin_times(memory, timezone.now())

    created, archived = entry_of(memory, "created"), entry_of(memory, "archived")
    assert (created.action, created.reason) == ("created", "")
    assert (archived.action, archived.reason) == ("archived", "we stopped deploying on Fridays")


def test_an_event_shares_its_change_id_with_the_version_it_wrote(make_memory):
    """Each write's event and version carry one change id, distinct from the next write's."""
    memory = make_memory("Deploy on Fridays.")
    archive(memory, reason="obsolete")

    versions = list(
        Memory.history.filter(id=memory.pk)
        .order_by("history_date", "history_id")
        .values_list("history_change_id", flat=True)
    )
    events = list(
        AuditEvent.objects.filter(object_type="memory", object_id=str(memory.pk))
        .order_by("created_at", "id")
        .values_list("change_id", flat=True)
    )
    assert versions == events
    assert None not in versions
    assert versions[0] != versions[1]


def test_a_bulk_archive_pairs_each_event_with_its_own_version(project):
    """A bulk archive's events, one per memory, go with that memory's archive version."""
    memories = [
        memory_create(project=project, category="OPS_RULES", content=f"Rule {i}.", actor="agent")
        for i in range(3)
    ]
    bulk_apply(
        action="archive",
        memory_ids=[m.pk for m in memories],
        expected=3,
        actor="agent",
        reason="replaced by the runbook",
    )
    at = timezone.now()
    for memory in memories:
        pin_times(memory, at)

    bulk_ids = set()
    for memory in memories:
        created, archived = entry_of(memory, "created"), entry_of(memory, "archived")
        assert (created.action, created.reason) == ("created", "")
        assert (archived.action, archived.reason) == ("archived", "replaced by the runbook")
        assert archived.change_id is not None
        assert archived.change_id != created.change_id
        bulk_ids.add(archived.change_id)
    assert len(bulk_ids) == 1


def test_rows_from_before_change_ids_still_pair_by_actor_and_time(make_memory):
    """Versions and events without change ids are paired as before: same actor, nearest time."""
    memory = make_memory("Deploy on Fridays.")
    archive(memory, reason="obsolete")
    forget_change_ids(memory)
    created_at = timezone.now() - timedelta(minutes=1)
    Memory.history.filter(id=memory.pk, history_type="+").update(history_date=created_at)
    AuditEvent.objects.filter(object_id=str(memory.pk), action="created").update(
        created_at=created_at
    )

    created, archived = entry_of(memory, "created"), entry_of(memory, "archived")
    assert (created.action, created.reason, created.change_id) == ("created", "", None)
    assert (archived.action, archived.reason) == ("archived", "obsolete")
    assert len(memory_timeline(memory)) == 2


def test_old_and_new_rows_of_one_memory_each_pair_their_own_way(make_memory):
    """An old creation pairs by time; a later archive with a change id pairs by its id."""
    memory = make_memory("Deploy on Fridays.")
    forget_change_ids(memory)
    archive(memory, reason="obsolete")
    pin_times(memory, timezone.now())

    created, archived = entry_of(memory, "created"), entry_of(memory, "archived")
    assert (created.action, created.reason) == ("created", "")
    assert (archived.action, archived.reason) == ("archived", "obsolete")


def test_nested_acting_blocks_share_the_outer_change_id():
    """An acting block inside another is part of the same change unless it opens a new one."""
    assert current_change_id() is None
    with acting(actor="agent", reason="sync") as outer:
        with acting(actor="historian", reason="one row") as inner:
            assert inner.change_id == outer.change_id
            assert (inner.actor.label, inner.reason) == ("historian", "one row")
        with acting(actor="agent", new_change=True) as separate:
            assert separate.change_id != outer.change_id
        assert current() == outer
    assert current_change_id() is None
    with acting(actor="agent") as later:
        assert later.change_id != outer.change_id


def test_a_service_inside_an_acting_block_writes_under_the_outer_change(project):
    """A service called within a caller's acting block stamps the caller's change id."""
    with acting(actor="agent", reason="import") as outer:
        memory = memory_create(
            project=project, category="OPS_RULES", content="Deploy on Fridays.", actor="agent"
        )
    version = Memory.history.get(id=memory.pk)
    event = AuditEvent.objects.get(object_type="memory", object_id=str(memory.pk))
    assert version.history_change_id == event.change_id == outer.change_id


def test_writes_outside_any_acting_block_have_no_change_id(make_memory):
    """A version written with no change under way is left without a change id."""
    memory = make_memory("Deploy on Fridays.")
    Memory.objects.filter(pk=memory.pk).get().save()
    assert Memory.history.filter(id=memory.pk).latest().history_change_id is None


def test_the_timeline_costs_the_same_queries_however_many_changes(make_memory):
    """Pairing by change id adds no query per version or event."""
    short = make_memory("Deploy on Fridays.")
    archive(short, reason="obsolete")
    long = make_memory("Deploy on Mondays.")
    for day in ("Tuesdays", "Wednesdays", "Thursdays", "Saturdays"):
        memory_update(memory=long, actor="agent", content=f"Deploy on {day}.", reason=day)
    archive(long, reason="obsolete")

    counts = []
    for memory in (short, long):
        with CaptureQueriesContext(connection) as queries:
            memory_timeline(memory)
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_a_fragment_names_its_original_through_the_change_that_made_it(make_memory, people):
    """The fragmentation event is found by change id, however far its time is from the fragment's."""
    from memadmin.structure.fragment_lines import offsets_of
    from memadmin.structure.fragment_services import memory_fragment

    original = make_memory("Release SOP\n\n1. Build.\n2. Tag.\n3. Announce.")
    result = memory_fragment(
        memory=original,
        boundaries=offsets_of(original.content, [3, 4, 5]),
        composite_type="sequence",
        summary="Release SOP: build, tag, announce.",
        actor=people["editor"],
        reason="too long to inject",
    )
    AuditEvent.objects.filter(action="fragmented").update(
        created_at=timezone.now() - timedelta(hours=1)
    )
    created = entry_of(result.header, "fragment_of")
    assert [ref.pk for ref in created.memories] == [original.pk]
