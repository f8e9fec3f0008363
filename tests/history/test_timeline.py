"""The memory timeline: every kind of change, who, when and why, newest first."""

import pytest

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.services import (
    composite_create,
    composite_member_add,
    composite_member_remove,
)
from memadmin.core.worddiff import DiffOp
from memadmin.curation.merge_services import memory_merge
from memadmin.history.timeline import memory_timeline
from memadmin.memories.archive_services import memory_supersede
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update, memory_write_or_bump

pytestmark = pytest.mark.django_db


def kinds(memory) -> list[str]:
    return [entry.kind for entry in memory_timeline(memory)]


def test_creation_names_its_author_and_reason(make_memory):
    """A new memory's only entry is its creation, by whoever wrote it and why."""
    memory = make_memory("Deploy with just deploy.", actor="historian", reason="from session 4")
    (entry,) = memory_timeline(memory)
    assert (entry.kind, entry.actor, entry.actor_kind, entry.reason) == (
        "created",
        "historian",
        "agent",
        "from session 4",
    )


def test_edit_carries_a_word_level_diff(make_memory, people):
    """An edit of the text shows which words went and which came."""
    memory = make_memory("Deploy with just deploy on Fridays.")
    memory_update(
        memory=memory,
        actor=people["editor"],
        content="Deploy with make deploy on Fridays.",
        reason="we moved to make",
    )
    newest = memory_timeline(memory)[0]
    assert newest.kind == "edited"
    assert (newest.actor, newest.actor_kind, newest.reason) == (
        "editor",
        "person",
        "we moved to make",
    )
    assert DiffOp("delete", "just") in newest.diff
    assert DiffOp("insert", "make") in newest.diff


def test_entries_are_newest_first(make_memory):
    """Recategorising, archiving and restoring each add an entry on top."""
    memory = make_memory("Keep the runbook current.")
    memory_update(memory=memory, actor="dreamer", category="RESEARCH")
    memory_update(memory=memory, actor="dreamer", status=Memory.Status.ARCHIVED)
    memory_update(memory=memory, actor="dreamer", status=Memory.Status.ACTIVE)
    assert kinds(memory) == ["restored", "archived", "recategorised", "created"]
    recategorised = memory_timeline(memory)[2]
    assert recategorised.category_change == ("OPS_RULES", "RESEARCH")
    times = [entry.at for entry in memory_timeline(memory)]
    assert times == sorted(times, reverse=True)


def test_a_sync_seeing_the_memory_again_is_one_quiet_entry(make_memory, project):
    """A duplicate write bumps the seen count: the timeline says so, without a diff."""
    memory = make_memory("Rotate keys monthly.")
    memory_write_or_bump(
        project=project, category="OPS_RULES", content="rotate keys  monthly.", actor="historian"
    )
    newest = memory_timeline(memory)[0]
    assert (newest.kind, newest.actor, newest.diff) == ("seen_again", "historian", [])


def test_merge_shows_on_both_sides(make_memory, people):
    """The sources were merged into the result; the result was made by merging them."""
    first = make_memory("Drain the node first.")
    second = make_memory("Always drain before reboot.")
    result = memory_merge(
        memories=[first, second],
        content="Drain the node before any reboot.",
        actor=people["editor"],
        reason="same rule",
    )
    source_entry = memory_timeline(first)[0]
    assert source_entry.kind == "merged_into"
    assert [ref.pk for ref in source_entry.memories] == [result.pk]
    assert source_entry.status_change == ("active", "archived")
    assert source_entry.reason == "same rule"
    result_entry = memory_timeline(result)[0]
    assert result_entry.kind == "merged_from"
    assert sorted(ref.pk for ref in result_entry.memories) == sorted([first.pk, second.pk])


def test_superseded_without_a_merge(make_memory):
    """A memory archived in favour of a successor it was not merged into reads as superseded."""
    old = make_memory("Use Postgres 14.")
    new = make_memory("Use Postgres 16.")
    memory_supersede(memory=old, successor=new, actor="import", reason="synced")
    entry = memory_timeline(old)[0]
    assert (entry.kind, entry.actor, entry.reason) == ("superseded", "import", "synced")
    assert entry.memories[0].pk == new.pk
    assert entry.status_change == ("active", "archived")


def test_joining_and_leaving_a_composite(make_memory, people):
    """Membership changes appear on the member's timeline, with the composite and position."""
    head = make_memory("Release SOP.")
    step = make_memory("Tag the release.")
    composite = composite_create(
        head=head, type="sequence", actor=people["editor"], title="Release steps"
    )
    composite_member_add(composite=composite, members=[step], actor=people["editor"])
    composite_member_remove(
        composite=composite, member=step, actor=people["curator"], reason="obsolete step"
    )
    left, joined = memory_timeline(step)[:2]
    assert (joined.kind, joined.composite.label, joined.composite.position) == (
        "joined",
        "Release steps",
        0,
    )
    assert (left.kind, left.actor, left.reason) == ("left", "curator", "obsolete step")
    assert memory_timeline(head)[0].kind == "headed"


def test_merge_repoints_membership_to_the_result(make_memory, people):
    """A member merged away leaves the composite, and the result joins it."""
    head = make_memory("Incident playbook.")
    first = make_memory("Page the on-call.")
    second = make_memory("Call the on-call engineer.")
    composite = composite_create(head=head, type="theme", actor=people["editor"], members=[first])
    result = memory_merge(
        memories=[first, second], content="Page the on-call engineer.", actor=people["editor"]
    )
    assert "left" in kinds(first)
    joined = [entry for entry in memory_timeline(result) if entry.kind == "joined"]
    assert joined[0].composite.pk == composite.pk


def test_fragmenting_shows_on_the_original_the_header_and_the_details(make_memory, people):
    """The original was fragmented into a header; header and details name the original."""
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
    entry = memory_timeline(original)[0]
    assert (entry.kind, entry.actor, entry.reason) == ("fragmented", "editor", "too long to inject")
    assert [ref.pk for ref in entry.memories] == [result.header.pk]
    for made in (result.header, result.details[0]):
        created = memory_timeline(made)[-1]
        assert created.kind == "fragment_of"
        assert [ref.pk for ref in created.memories] == [original.pk]
    assert "joined" in kinds(result.details[0])


def test_an_event_without_a_version_is_an_entry_of_its_own(make_memory):
    """A fragmentation recorded only as an audit event still shows, with its reason."""
    memory = make_memory("A long SOP with many steps.")
    with acting(actor="dreamer", reason="too long to inject"):
        audit_record(action="fragmented", target=memory, changes={"fragments": 4})
    entry = memory_timeline(memory)[0]
    assert (entry.kind, entry.label, entry.reason) == (
        "fragmented",
        "fragmented",
        "too long to inject",
    )


def test_an_unknown_action_is_named_as_recorded(make_memory):
    """An action the timeline does not know is shown in its own words."""
    memory = make_memory("Check the dashboards.")
    audit_record(action="flagged_for_review", target=memory, actor="dreamer")
    assert memory_timeline(memory)[0].label == "flagged for review"


def test_limit_keeps_the_newest(make_memory):
    """With a limit, only the newest entries are returned."""
    memory = make_memory("v1")
    for text in ("v2", "v3", "v4"):
        memory_update(memory=memory, actor="agent", content=text)
    entries = memory_timeline(memory, limit=2)
    assert [entry.diff[-1].text for entry in entries] == ["v4", "v3"]


def test_the_number_of_queries_does_not_grow_with_the_history(make_memory, people):
    """Ten edits and five composites cost the same queries as one of each."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries_for(edits: int, composites: int) -> int:
        memory = make_memory(f"Text {edits} {composites}.")
        for n in range(edits):
            memory_update(memory=memory, actor="agent", content=f"Text {n} of {edits}.")
        for n in range(composites):
            head = make_memory(f"Head {n} of {composites} for {memory.pk}.")
            composite_create(head=head, type="theme", actor="agent", members=[memory])
        with CaptureQueriesContext(connection) as captured:
            memory_timeline(memory)
        return len(captured)

    assert queries_for(10, 5) == queries_for(1, 1)
