"""Stale headers: which headers a detail change makes stale, what changed, and syncing."""

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memadmin.audit.models import AuditEvent
from memadmin.headermap.models import HeaderSync
from memadmin.headermap.stale_selectors import stale_header_count, stale_header_ids, stale_headers
from memadmin.headermap.stale_services import header_mark_synced
from memadmin.memories.services import memory_create, memory_update

from .stale_fixtures import T0, edit_build, make_release

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test counts afresh: rolled-back tests reuse ids, so fingerprints can repeat."""
    cache.clear()


@pytest.fixture
def release(project):
    """A header over two steps, in sync."""
    return make_release(project)


@pytest.fixture
def edited(release):
    """The same, with one step edited after the header was made."""
    return edit_build(release)


def test_a_header_made_with_its_details_is_not_stale(release):
    """Details no newer than their header leave it in sync."""
    assert stale_header_count() == 0
    assert stale_headers() == []


def test_a_detail_edited_after_the_header_makes_it_stale(edited):
    """One edited detail: one stale header, listing that detail with its word diff."""
    assert stale_header_count() == 1
    (entry,) = stale_headers()
    assert entry.header == edited["header"]
    assert entry.since == T0 and not entry.synced
    (change,) = entry.changes
    assert change.detail == edited["build"]
    assert change.before == "Build with make release."
    assert [(op.kind, op.text) for op in change.diff if op.kind != "equal"] == [("insert", "-all")]
    (version,) = change.versions
    assert (version.actor, version.reason, version.updated_at) == (
        "historian",
        "the target was renamed",
        T0 + 60_000,
    )


def test_marking_synced_clears_it_until_the_next_change(edited):
    """After a sync the header is fresh; a later detail change makes it stale again."""
    header_mark_synced(header=edited["header"], actor="dreamer", at_ms=T0 + 120_000)
    assert stale_header_count() == 0
    memory_update(memory=edited["tag"], importance=70, actor="agent", at_ms=T0 + 180_000)
    (entry,) = stale_headers()
    assert entry.synced and entry.since == T0 + 120_000
    (change,) = entry.changes
    assert change.detail.pk == edited["tag"].pk
    assert change.fields == [("importance", 50, 70)]
    assert not change.text_changed


def test_a_detail_added_after_the_sync_shows_as_new(release, project):
    """A member that did not exist at the sync is listed whole, as new."""
    from memadmin.composites.services import composite_member_add

    late = memory_create(
        project=project, category="OPS_RULES", content="Announce it.", actor="agent", at_ms=T0 + 5
    )
    composite_member_add(
        composite=release["header"].headed_composites.get(), members=[late], actor="agent"
    )
    (entry,) = stale_headers()
    (change,) = entry.changes
    assert change.detail.pk == late.pk and change.before is None


def test_an_archived_header_is_never_stale(edited):
    """Only live headers are listed."""
    memory_update(memory=edited["header"], status="archived", actor="agent", at_ms=T0 + 1)
    assert stale_header_count() == 0


def test_the_count_is_one_query_while_nothing_changes(edited):
    """The navigation count costs one query once counted, until the store changes."""
    with CaptureQueriesContext(connection) as first:
        assert stale_header_count() == 1
    with CaptureQueriesContext(connection) as again:
        assert stale_header_count() == 1
    assert len(first) == 2 and len(again) == 1


def test_the_count_follows_every_change(edited):
    """A sync, then a detail change, each show in the very next count."""
    assert stale_header_count() == 1
    header_mark_synced(header=edited["header"], actor="dreamer", at_ms=T0 + 120_000)
    assert stale_header_count() == 0
    memory_update(memory=edited["tag"], importance=70, actor="agent", at_ms=T0 + 180_000)
    assert stale_header_count() == 1


def test_the_queue_reads_six_queries_without_membership_changes(edited):
    """Changed details, changed and deleted composites, headers, details and versions."""
    with CaptureQueriesContext(connection) as queries:
        stale_headers()
    assert len(queries) == 6


def test_stale_ids_filter_by_project(edited, mc_project):
    """A project filter keeps only that project's headers."""
    assert stale_header_ids(edited["header"].project) == [edited["header"].pk]
    assert stale_header_ids(mc_project) == []


def test_marking_synced_is_audited(edited):
    """The sync is recorded with its actor and the times before and after."""
    sync = header_mark_synced(
        header=edited["header"], actor="dreamer", reason="reviewed", at_ms=T0 + 9
    )
    assert (sync.synced_at, sync.synced_by) == (T0 + 9, "dreamer")
    event = AuditEvent.objects.get(action="header_synced")
    assert event.object_id == str(edited["header"].pk)
    assert event.changes == {"synced_at": [None, T0 + 9]}
    assert event.reason == "reviewed" and event.actor_label == "dreamer"


def test_a_memory_heading_nothing_cannot_be_synced(edited):
    """Only a header can be marked synced; nothing is written otherwise."""
    with pytest.raises(ValidationError, match="heads no composite"):
        header_mark_synced(header=edited["build"], actor="agent")
    assert not HeaderSync.objects.exists()
    assert not AuditEvent.objects.filter(action="header_synced").exists()


def make_late_composite(project) -> dict:
    """A header made at T0, its details a minute later, and their composite two minutes on."""

    def make(content, at_ms):
        return memory_create(
            project=project, category="OPS_RULES", content=content, actor="agent", at_ms=at_ms
        )

    from memadmin.composites.services import composite_create

    header = make("Deploy: drain, then switch.", T0)
    drain = make("Drain the old pool.", T0 + 60_000)
    switch = make("Switch the router.", T0 + 60_000)
    composite_create(
        head=header, type="sequence", members=[drain, switch], actor="agent", at_ms=T0 + 120_000
    )
    return {"header": header, "drain": drain, "switch": switch}


def test_making_a_composite_over_older_details_leaves_its_head_in_sync(project):
    """Never synced, a header counts from its composite's making, not its own creation."""
    make_late_composite(project)
    assert stale_header_count() == 0
    assert stale_header_ids() == []
    assert stale_headers() == []


def test_a_header_never_synced_counts_detail_edits_from_its_first_composite(project):
    """An edit after the making shows, diffed against the text the composite was made over."""
    late = make_late_composite(project)
    memory_update(
        memory=late["drain"],
        content="Drain the old pool slowly.",
        actor="agent",
        at_ms=T0 + 180_000,
    )
    assert stale_header_count() == 1
    (entry,) = stale_headers()
    assert not entry.synced and entry.since == T0 + 120_000
    (change,) = entry.changes
    assert change.before == "Drain the old pool."
    assert [version.updated_at for version in change.versions] == [T0 + 180_000]
