"""Stale headers from membership: a detail joining, leaving or moving, a composite made or deleted."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.composites.services import (
    composite_create,
    composite_delete,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
)
from memadmin.headermap.stale_selectors import stale_header_count, stale_header_ids, stale_headers
from memadmin.headermap.stale_services import header_mark_synced
from memadmin.memories.services import memory_create, memory_update

from .stale_fixtures import T0, edit_build, make_release

pytestmark = pytest.mark.django_db

SYNC = T0 + 120_000
LATER = T0 + 180_000


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test counts afresh: rolled-back tests reuse ids, so fingerprints can repeat."""
    cache.clear()


def note(project, content="Write the release notes."):
    """Return a memory made at T0 that no composite holds, and that nobody edits later."""
    return memory_create(
        project=project, category="OPS_RULES", content=content, actor="agent", at_ms=T0
    )


@pytest.fixture
def synced(project):
    """The "Release" sequence and its header, synced two minutes later; a loose note."""
    release = make_release(project)
    release["sequence"] = release["header"].headed_composites.get()
    release["notes"] = note(project)
    header_mark_synced(header=release["header"], actor="dreamer", at_ms=SYNC)
    return release


@pytest.fixture
def checks(synced):
    """A second composite of the same header, "Checks", made before the sync."""
    synced["checks"] = composite_create(
        head=synced["header"],
        type="theme",
        members=[synced["notes"]],
        title="Checks",
        actor="agent",
        at_ms=SYNC - 1,
    )
    return synced


def join(release, at_ms=LATER):
    composite_member_add(
        composite=release["sequence"],
        members=[release["notes"]],
        actor="historian",
        reason="the notes are a step now",
        at_ms=at_ms,
    )


def leave(release, at_ms=LATER):
    composite_member_remove(
        composite=release["sequence"],
        member=release["tag"],
        actor="dreamer",
        reason="tags are automatic",
        at_ms=at_ms,
    )


def move(release, at_ms=LATER):
    composite_member_move(
        composite=release["sequence"],
        member=release["tag"],
        position=0,
        actor="dreamer",
        reason="tag first",
        at_ms=at_ms,
    )


def delete_checks(release, at_ms=LATER):
    composite_delete(
        composite=release["checks"], actor="dreamer", reason="folded into the release", at_ms=at_ms
    )


def only_change(release):
    """Return the one membership change of the one stale header, checking it has no other."""
    (entry,) = stale_headers()
    assert entry.header == release["header"] and entry.synced and entry.since == SYNC
    assert entry.changes == []
    (change,) = entry.membership
    return change


def test_a_memory_joining_after_the_sync_makes_the_header_stale(synced):
    """An unchanged memory added to one of its composites is listed as joined."""
    join(synced)
    change = only_change(synced)
    assert change.kind == "joined"
    assert [member.pk for member in change.members] == [synced["notes"].pk]
    assert (change.at, change.actor, change.reason) == (
        LATER,
        "historian",
        "the notes are a step now",
    )
    assert change.summary == f"#{synced['notes'].display_id} joined the sequence 'Release'"


def test_a_member_leaving_after_the_sync_makes_the_header_stale(synced):
    """A removed member is listed as having left, with who removed it and why."""
    leave(synced)
    change = only_change(synced)
    assert (change.kind, change.actor, change.reason) == ("left", "dreamer", "tags are automatic")
    assert change.summary == f"#{synced['tag'].display_id} left the sequence 'Release'"


def test_reordering_after_the_sync_makes_the_header_stale(synced):
    """A member moved to another position is listed as moved within its composite."""
    move(synced)
    change = only_change(synced)
    assert change.kind == "moved" and change.at == LATER
    assert change.summary == f"#{synced['tag'].display_id} moved within the sequence 'Release'"


def test_moving_one_member_again_and_again_is_one_change_counted(synced):
    """Step-by-step moves of one member by one actor are listed once, with their count."""
    move(synced)
    composite_member_move(
        composite=synced["sequence"],
        member=synced["tag"],
        position=1,
        actor="dreamer",
        at_ms=LATER + 1,
    )
    change = only_change(synced)
    assert (change.kind, change.times, change.at) == ("moved", 2, LATER + 1)
    assert change.summary == (
        f"#{synced['tag'].display_id} moved within the sequence 'Release' (2 moves)"
    )


def test_moves_by_two_people_stay_two_changes(synced):
    """A move is folded into the one before it only when the same actor made both."""
    move(synced)
    composite_member_move(
        composite=synced["sequence"],
        member=synced["tag"],
        position=1,
        actor="historian",
        at_ms=LATER + 1,
    )
    (entry,) = stale_headers()
    assert [(c.kind, c.actor, c.times) for c in entry.membership] == [
        ("moved", "dreamer", 1),
        ("moved", "historian", 1),
    ]


def test_deleting_one_of_its_composites_makes_the_header_stale(checks):
    """A composite deleted while the header still heads another is listed with its members."""
    assert stale_header_count() == 0
    delete_checks(checks)
    change = only_change(checks)
    assert change.kind == "deleted" and not change.composite_exists
    assert (change.at, change.actor, change.reason) == (
        LATER,
        "dreamer",
        "folded into the release",
    )
    assert change.summary == (
        f"The theme 'Checks' was deleted; #{checks['notes'].display_id} left with it"
    )


def test_deleting_its_only_composite_leaves_no_header_to_sync(synced):
    """A memory that heads nothing any more is not a header, so it is not stale."""
    composite_delete(composite=synced["sequence"], actor="dreamer", at_ms=LATER)
    assert stale_header_ids() == [] and stale_header_count() == 0
    assert stale_headers() == []


def test_a_composite_made_after_the_sync_makes_the_header_stale(synced):
    """New details under a synced header, in a new composite, are listed as made."""
    composite_create(
        head=synced["header"],
        type="theme",
        members=[synced["notes"]],
        title="Checks",
        actor="dreamer",
        at_ms=LATER,
    )
    change = only_change(synced)
    assert change.kind == "made" and change.composite_exists
    assert change.summary == f"The theme 'Checks' was made with #{synced['notes'].display_id}"


def test_membership_changes_before_the_sync_do_not_count(checks):
    """Joins, leaves, moves and deletions the sync already saw leave the header fresh."""
    for change in (join, move, leave, delete_checks):
        change(checks, at_ms=SYNC - 1)
    assert stale_header_count() == 0 and stale_headers() == []


def test_a_header_never_synced_counts_from_its_composites_making(project):
    """Never synced: the members a composite is made with are no change, a later join is."""
    release = make_release(project)
    release["sequence"] = release["header"].headed_composites.get()
    release["notes"] = note(project)
    assert stale_header_count() == 0
    join(release)
    (entry,) = stale_headers()
    assert not entry.synced and entry.since == T0
    assert [change.kind for change in entry.membership] == ["joined"]


@pytest.mark.parametrize("change", [join, leave, move, delete_checks])
def test_marking_synced_clears_a_membership_change(checks, change):
    """Each kind of change makes the header stale until it is marked synced again."""
    change(checks)
    assert stale_header_ids() == [checks["header"].pk]
    assert stale_header_count() == 1
    header_mark_synced(header=checks["header"], actor="dreamer", at_ms=LATER + 1)
    assert stale_header_ids() == [] and stale_header_count() == 0
    assert stale_headers() == []


def test_the_count_follows_membership_changes(synced):
    """The navigation count moves on a join and back on the sync, with no detail edited."""
    assert stale_header_count() == 0
    join(synced)
    assert stale_header_count() == 1
    header_mark_synced(header=synced["header"], actor="dreamer", at_ms=LATER + 1)
    assert stale_header_count() == 0


def test_each_stale_header_is_listed_once(checks):
    """Changed details and changed composites of one header give its id once."""
    edit_build(checks)
    memory_update(memory=checks["tag"], importance=70, actor="agent", at_ms=LATER)
    join(checks)
    delete_checks(checks, at_ms=LATER + 1)
    assert stale_header_ids() == [checks["header"].pk]
    assert stale_header_count() == 1
    (entry,) = stale_headers()
    assert [change.detail.pk for change in entry.changes] == [checks["tag"].pk]
    assert [change.kind for change in entry.membership] == ["joined", "deleted"]


def test_the_queue_is_seven_queries_whatever_changed(checks, make_project):
    """Changed details, changed and deleted composites, their events, headers, details and
    versions: seven queries for any number of headers and changes."""
    edit_build(make_release(make_project()))
    memory_update(memory=checks["tag"], importance=70, actor="agent", at_ms=LATER)
    join(checks)
    delete_checks(checks)
    with CaptureQueriesContext(connection) as queries:
        entries = stale_headers()
    assert len(entries) == 2 and len(queries) == 7


def test_deleted_composites_follow_the_project_filter(checks, mc_project):
    """A deletion shows under its header's project only."""
    delete_checks(checks)
    assert stale_header_ids(checks["header"].project) == [checks["header"].pk]
    assert stale_header_ids(mc_project) == []
    assert stale_headers(mc_project) == []


def test_an_archived_header_is_not_stale_for_its_membership(synced):
    """Only live headers are listed, whatever happened to their composites."""
    join(synced)
    memory_update(memory=synced["header"], status="archived", actor="agent", at_ms=LATER + 1)
    assert stale_header_count() == 0 and stale_headers() == []
