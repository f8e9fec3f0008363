"""Refusals of the memory services that no other test reached, and the audit fields they pin.

Each refusal leaves the store as it was: no row changes and no audit event is written.
"""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.composites.services import composite_create, composite_member_add
from memadmin.curation.bulk_services import StalePlan, bulk_apply, bulk_plan
from memadmin.curation.merge_services import memory_merge, memory_merge_undo
from memadmin.memories.archive_services import memory_archive, memory_supersede
from memadmin.memories.models import Memory
from memadmin.memories.services import (
    CONTENT_MAX_CHARS,
    memory_create,
    memory_update,
    memory_write_or_bump,
)
from memadmin.projects.services import project_create, project_set_budget

pytestmark = pytest.mark.django_db


@pytest.fixture
def make(project):
    counter = iter(range(1, 10_000))

    def make(category="OPS_RULES", project=project, **fields):
        return memory_create(
            project=project,
            category=category,
            content=f"{category} fact {next(counter)}.",
            actor="agent",
            **fields,
        )

    return make


def events() -> int:
    return AuditEvent.objects.count()


# --- memory_update


def test_an_edit_of_a_field_that_cannot_be_edited_is_refused_by_name(make):
    """Fields outside the editable ones are refused, named in sorted order, nothing written."""
    memory = make()
    before = events()
    with pytest.raises(ValidationError, match=r"cannot be edited here: metadata, upstream_id\."):
        memory_update(memory=memory, actor="agent", upstream_id=3, metadata={})
    assert events() == before


def test_an_edit_that_changes_nothing_writes_nothing(make):
    """Saving the same values is no change: no new version, no event, the same updated_at."""
    memory = make(importance=60)
    before, versions = events(), memory.history.count()
    same = memory_update(memory=memory, actor="agent", importance=60, content=memory.content)
    assert same.updated_at == memory.updated_at
    assert (events(), memory.history.count()) == (before, versions)


def test_a_content_edit_records_the_old_and_new_text_and_resets_shareable(make):
    """An edit's event names the action, project, category and each changed field's values."""
    memory = make(shareable=True)
    old = memory.content
    edited = memory_update(memory=memory, actor="agent", content="Drain nodes first.")
    event = AuditEvent.objects.latest("pk")
    assert (event.action, event.object_id, event.project_id, event.category) == (
        "edited",
        str(memory.pk),
        memory.project_id,
        "OPS_RULES",
    )
    assert event.changes == {"content": [old, "Drain nodes first."]}
    assert (edited.shareable, edited.classified_at) == (False, None)


def test_a_category_change_alone_is_recorded_as_recategorised(make):
    """Moving a memory to another category is the `recategorised` action, in the new one."""
    memory = make()
    memory_update(memory=memory, actor="agent", category="RESEARCH")
    event = AuditEvent.objects.latest("pk")
    assert (event.action, event.category, event.changes) == (
        "recategorised",
        "RESEARCH",
        {"category": ["OPS_RULES", "RESEARCH"]},
    )


# --- memory_supersede


def test_a_memory_cannot_supersede_itself(make):
    """A memory is never its own successor."""
    memory = make()
    with pytest.raises(ValidationError, match="cannot supersede itself"):
        memory_supersede(memory=memory, successor=memory, actor="agent")
    memory.refresh_from_db()
    assert (memory.status, memory.superseded_by_id) == ("active", None)


def test_a_successor_must_be_of_the_same_project(make, make_project):
    """A memory of another project cannot supersede one of this project."""
    memory = make()
    other = make(project=make_project())
    before = events()
    with pytest.raises(ValidationError, match="superseded by one of the same project"):
        memory_supersede(memory=memory, successor=other, actor="agent")
    assert events() == before


def test_an_archived_memory_cannot_supersede_anything(make):
    """The successor must be live: an archived one is refused, named."""
    memory, successor = make(), make()
    memory_archive(memory=successor, actor="agent")
    successor.refresh_from_db()
    before = events()
    with pytest.raises(ValidationError, match=f"#{successor.display_id} is archived"):
        memory_supersede(memory=memory, successor=successor, actor="agent")
    assert events() == before


# --- projects


def test_a_second_project_with_the_same_identity_is_refused(project):
    """A project's identity is unique: a second one is refused, naming it."""
    with pytest.raises(ValidationError, match=f"A project {project.identity} already exists"):
        project_create(identity=project.identity, name="Again", actor="system")


def test_a_budget_change_is_saved_and_recorded_with_both_values(project, people):
    """Changing the budget records `budget_changed` with the old and the new budget."""
    project_set_budget(project=project, budget=6000, actor=people["admin"])
    project.refresh_from_db()
    assert project.injection_budget == 6000
    event = AuditEvent.objects.latest("pk")
    assert (event.action, event.object_type, event.object_id, event.project_id) == (
        "budget_changed",
        "project",
        str(project.pk),
        project.pk,
    )
    assert (event.actor_label, event.actor_kind) == ("admin", "person")
    assert event.changes == {"injection_budget": [4000, 6000]}


# --- bulk


def test_an_unknown_bulk_action_is_refused(make):
    """A bulk action outside archive, restore, move and add is refused, listing them."""
    with pytest.raises(ValidationError, match="Choose one of: archive, restore"):
        bulk_plan(action="delete", memories=[make()])


def test_moving_memories_leaves_those_already_in_the_category(make):
    """A memory already in the target category is unchanged, not moved again."""
    there, elsewhere = make("RESEARCH"), make()
    plan = bulk_plan(action="move", memories=[there, elsewhere], category="RESEARCH")
    assert (plan.unchanged, plan.change, plan.refused) == ([there], [elsewhere], [])


def test_adding_to_a_composite_needs_the_composite(make):
    """Adding to a composite without naming one is refused."""
    with pytest.raises(ValidationError, match="Choose the composite to add them to"):
        bulk_plan(action="add", memories=[make()])


def test_adding_to_a_composite_refuses_other_projects_and_archived_memories(make, make_project):
    """Memories of another project, archived ones and the head are refused, each with why."""
    head, member, fresh, archived = make(), make(), make(), make()
    foreign = make(project=make_project())
    memory_archive(memory=archived, actor="agent")
    archived.refresh_from_db()
    composite = composite_create(head=head, type="theme", members=[member], actor="agent")
    plan = bulk_plan(
        action="add", memories=[head, member, fresh, archived, foreign], composite=composite
    )
    assert plan.change == [fresh]
    assert plan.unchanged == [member]
    assert plan.refused == [
        (head, "it heads this composite"),
        (archived, "it is archived"),
        (foreign, "it belongs to another project"),
    ]


def test_a_bulk_apply_with_nothing_to_change_writes_nothing(make):
    """Applying an action that changes none of the memories writes no event."""
    memory = make("RESEARCH")
    before = events()
    plan = bulk_apply(
        action="move", memory_ids=[memory.pk], expected=0, actor="agent", category="RESEARCH"
    )
    assert (plan.change, plan.unchanged) == ([], [memory])
    assert events() == before


def test_a_bulk_move_records_one_event_per_memory_with_both_categories(make):
    """Each moved memory gets a `recategorised` event in its new category, with the reason."""
    first, second = make(), make()
    bulk_apply(
        action="move",
        memory_ids=[first.pk, second.pk],
        expected=2,
        actor="agent",
        category="RESEARCH",
        reason="sorting",
    )
    moved = AuditEvent.objects.filter(action="recategorised").order_by("object_id")
    assert [(e.object_id, e.category, e.changes, e.reason) for e in moved] == [
        (str(m.pk), "RESEARCH", {"category": ["OPS_RULES", "RESEARCH"]}, "sorting")
        for m in sorted([first, second], key=lambda m: str(m.pk))
    ]


# --- merge


def test_a_merge_of_a_memory_deleted_meanwhile_is_refused(make):
    """A merge whose memories are not all there any more is refused, nothing written."""
    first, second = make(), make()
    Memory.objects.filter(pk=second.pk).delete()
    with pytest.raises(ValidationError) as refused:
        memory_merge(memories=[first, second], content="Merged.", actor="agent")
    assert refused.value.message_dict == {
        "memories": ["One of the memories to merge no longer exists."]
    }
    first.refresh_from_db()
    assert first.status == "active"


def test_a_merged_text_over_the_limit_is_refused(make):
    """The merged text is held to the limit of any memory's text."""
    with pytest.raises(ValidationError, match=f"at most {CONTENT_MAX_CHARS} characters"):
        memory_merge(
            memories=[make(), make()], content="x" * (CONTENT_MAX_CHARS + 1), actor="agent"
        )
    assert Memory.objects.filter(merged_from__isnull=False).exclude(merged_from=[]).count() == 0


@pytest.mark.parametrize("importance", [0, 101, "50"])
def test_a_merge_importance_outside_1_to_100_is_refused(make, importance):
    """The merged memory's importance, when given, is a whole number from 1 to 100."""
    with pytest.raises(ValidationError, match="between 1 and 100"):
        memory_merge(memories=[make(), make()], content="M.", actor="agent", importance=importance)


@pytest.mark.parametrize(("actor", "source_type"), [("dreamer", "dreamer"), ("system", "agent")])
def test_a_merged_memory_is_sourced_from_the_actor(make, actor, source_type):
    """An actor named like a source type gives that type; any other non-person is an agent."""
    result = memory_merge(memories=[make(), make()], content="Merged.", actor=actor)
    assert result.source_type == source_type


def test_a_memory_merged_by_a_person_is_the_users(make, people):
    """A person's merge gives a memory of source type `user`."""
    result = memory_merge(memories=[make(), make()], content="Merged.", actor=people["curator"])
    assert result.source_type == "user"


def test_a_merge_cannot_be_undone_once_a_source_changed(make):
    """A source edited or restored after the merge blocks the undo, nothing written."""
    first, second = make(), make()
    result = memory_merge(memories=[first, second], content="Merged.", actor="agent")
    first.refresh_from_db()
    Memory.objects.filter(pk=first.pk).update(updated_at=first.updated_at + 5)
    before = events()
    with pytest.raises(ValidationError, match="changed or was deleted after the merge"):
        memory_merge_undo(result=result, actor="agent")
    assert events() == before
    assert Memory.objects.filter(pk=result.pk).exists()


def test_a_merge_cannot_be_undone_once_its_result_joined_a_composite(make):
    """A result added to a composite after the merge blocks the undo, and nothing changes."""
    result = memory_merge(memories=[make(), make()], content="Merged.", actor="agent")
    composite = composite_create(head=make(), type="theme", members=[], actor="agent")
    composite_member_add(composite=composite, members=[result], actor="agent")
    with pytest.raises(ValidationError, match="was added to composites after the merge"):
        memory_merge_undo(result=result, actor="agent")
    assert Memory.objects.filter(pk=result.pk, status="active").exists()
    assert Memory.objects.filter(superseded_by=result).count() == 2


# --- the audit events' fields, every one


def test_a_creation_records_text_category_and_status_under_its_project(project):
    """`created` names the memory, its project and category, with its text and status."""
    memory = memory_create(
        project=project,
        category="RESEARCH",
        content="Read the runbook.",
        actor="historian",
        status="permanent",
        reason="from session 4",
    )
    event = AuditEvent.objects.get(action="created")
    assert (event.object_type, event.object_id, event.project_id, event.category) == (
        "memory",
        str(memory.pk),
        project.pk,
        "RESEARCH",
    )
    assert (event.actor_label, event.reason) == ("historian", "from session 4")
    assert event.changes == {
        "content": "Read the runbook.",
        "category": "RESEARCH",
        "status": "permanent",
    }


def test_an_archive_records_the_status_and_the_reason_kept(make):
    """`archived` records the status change, with the reason (also kept in the metadata)."""
    memory = make()
    memory_archive(memory=memory, actor="agent", reason="stale", at_ms=memory.updated_at + 10)
    event = AuditEvent.objects.get(action="archived")
    assert (event.object_id, event.category, event.reason) == (str(memory.pk), "OPS_RULES", "stale")
    assert event.changes == {"status": ["active", "archived"]}
    memory.refresh_from_db()
    assert memory.metadata == {"archive_reason": "stale"}


def test_a_supersession_records_the_status_and_the_successor(make):
    """`superseded` records the status change and the successor's key."""
    memory, successor = make(importance=70), make()
    memory_supersede(memory=memory, successor=successor, actor="agent", reason="newer")
    event = AuditEvent.objects.get(action="superseded")
    assert (event.object_id, event.project_id, event.category, event.reason) == (
        str(memory.pk),
        memory.project_id,
        "OPS_RULES",
        "newer",
    )
    assert event.changes == {"status": ["active", "archived"], "superseded_by": successor.pk}


# --- what a sampled mutation run of the services found unpinned


def test_an_edit_that_only_changes_case_and_spacing_is_no_duplicate_of_itself(make):
    """A memory is not its own duplicate: re-spacing or re-casing its text is saved."""
    memory = make()
    edited = memory_update(memory=memory, actor="agent", content=f"  {memory.content.upper()} ")
    assert edited.content == f"  {memory.content.upper()} "
    assert edited.normalized_hash == memory.normalized_hash


def test_moving_needs_a_category(make):
    """A bulk move without a category is refused, on the category field."""
    with pytest.raises(ValidationError) as refused:
        bulk_plan(action="move", memories=[make()], category="")
    assert refused.value.message_dict == {"category": ["Choose the category to move them to."]}


def test_a_plan_lists_the_status_a_restore_brings_back_and_nothing_for_other_actions(make):
    """Each changing row carries the status a restore brings back, or "" for other actions."""
    memory = make()
    assert bulk_plan(action="archive", memories=[memory]).change_rows() == [(memory, "")]


def test_a_stale_bulk_apply_is_refused_with_its_code(make):
    """A confirmation whose count moved is refused as stale_plan, writing nothing."""
    memory = make()
    before = events()
    with pytest.raises(StalePlan) as refused:
        bulk_apply(action="archive", memory_ids=[memory.pk], expected=2, actor="agent")
    assert refused.value.code == "stale_plan"
    assert events() == before


def test_a_bulk_archive_records_each_memory_under_its_project(make):
    """Each archived memory's event is filed under its project and category, with the reason."""
    memory = make()
    bulk_apply(action="archive", memory_ids=[memory.pk], expected=1, actor="agent", reason="old")
    event = AuditEvent.objects.get(action="archived")
    assert (event.object_id, event.project_id, event.category, event.reason) == (
        str(memory.pk),
        memory.project_id,
        "OPS_RULES",
        "old",
    )
    assert event.changes == {"status": ["active", "archived"]}


def test_an_empty_merged_text_is_refused_on_the_content_field(make):
    """A merge without text is refused on the content field."""
    with pytest.raises(ValidationError) as refused:
        memory_merge(memories=[make(), make()], content="  ", actor="agent")
    assert refused.value.message_dict == {"content": ["Write the merged memory's text."]}


def test_an_undone_merge_records_the_result_text_and_its_sources(make):
    """`merge_undone` keeps the deleted result's text and the ids it was merged from."""
    first, second = make(), make()
    result = memory_merge(memories=[first, second], content="Merged.", actor="agent")
    memory_merge_undo(result=result, actor="agent", reason="too broad")
    event = AuditEvent.objects.get(action="merge_undone")
    assert (event.object_id, event.project_id, event.category, event.reason) == (
        str(result.pk),
        result.project_id,
        "OPS_RULES",
        "too broad",
    )
    assert event.changes == {"content": "Merged.", "merged_from": sorted([first.pk, second.pk])}


def test_a_write_with_an_unknown_source_type_is_refused(project):
    """A write names its source type from upstream's list; another is refused."""
    with pytest.raises(ValidationError) as refused:
        memory_write_or_bump(
            project=project, category="OPS_RULES", content="X.", actor="agent", source_type="bot"
        )
    assert "source_type" in refused.value.message_dict
    assert not Memory.objects.exists()


def test_a_bump_is_recorded_under_the_category_with_the_reason(project):
    """`seen_again` is filed under the memory's project and category, with the write's reason."""
    first, _ = memory_write_or_bump(
        project=project, category="OPS_RULES", content="Drain.", actor="historian"
    )
    memory_write_or_bump(
        project=project, category="OPS_RULES", content="drain.", actor="historian", reason="s2"
    )
    event = AuditEvent.objects.get(action="seen_again")
    assert (event.object_id, event.project_id, event.category, event.reason) == (
        str(first.pk),
        project.pk,
        "OPS_RULES",
        "s2",
    )


def test_a_dir_identity_is_a_project_identity_and_a_bad_one_is_refused_on_its_field():
    """Identities are `git:<sha>` or `dir:<hash>`; anything else is refused on `identity`."""
    assert project_create(identity="dir:" + "d" * 32, name="Dir", actor="system").pk
    with pytest.raises(ValidationError) as refused:
        project_create(identity="svn:1234", name="Svn", actor="system")
    assert refused.value.message_dict == {
        "identity": ["A project identity is 'git:<root-commit-sha>' or 'dir:<hash>'."]
    }


def test_a_text_over_the_limit_is_refused_on_the_content_field(project):
    """A memory's text longer than the limit is refused on its field, naming the limit."""
    with pytest.raises(ValidationError) as refused:
        memory_create(
            project=project,
            category="OPS_RULES",
            content="x" * (CONTENT_MAX_CHARS + 1),
            actor="agent",
        )
    assert refused.value.message_dict == {
        "content": [f"A memory holds at most {CONTENT_MAX_CHARS} characters."]
    }


def test_a_bump_with_an_unknown_source_type_is_refused_too(project):
    """The source type is checked before the duplicate is looked for: a bump is refused too."""
    first, _ = memory_write_or_bump(
        project=project, category="OPS_RULES", content="Drain.", actor="historian"
    )
    with pytest.raises(ValidationError) as refused:
        memory_write_or_bump(
            project=project,
            category="OPS_RULES",
            content="Drain.",
            actor="agent",
            source_type="bot",
        )
    assert "source_type" in refused.value.message_dict
    first.refresh_from_db()
    assert first.seen_count == 1
