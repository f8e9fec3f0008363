"""Merging memories: upstream's lifecycle rules, composite repointing, and undo (both engines)."""

import pytest
from django.core.exceptions import ValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.services import (
    composite_create,
    composite_cursor_set,
    composite_member_add,
)
from memadmin.curation.merge_services import memory_merge, memory_merge_undo
from memadmin.memories.archive_services import memory_supersede
from memadmin.memories.models import Memory
from memadmin.memories.services import DuplicateMemory, memory_create, memory_update

pytestmark = pytest.mark.django_db


@pytest.fixture
def make(project):
    counter = iter(range(1, 10_000))

    def make(category="OPS_RULES", **fields):
        return memory_create(
            project=project,
            category=category,
            content=f"{category} fact {next(counter)}.",
            actor="agent",
            **fields,
        )

    return make


def members_of(composite):
    return list(
        CompositeMember.objects.filter(composite=composite)
        .order_by("position")
        .values_list("member_id", flat=True)
    )


def test_merge_follows_upstreams_lifecycle_rule(make):
    """Sources archived and superseded, merged_from sorted, counters summed, permanent wins."""
    a = make(importance=40)
    b = make(importance=70, status="permanent")
    c = make()
    Memory.objects.filter(pk=a.pk).update(seen_count=3, retrieval_count=2)
    Memory.objects.filter(pk=b.pk).update(seen_count=4, retrieval_count=5)
    result = memory_merge(memories=[c, a, b], content="All three, said once.", actor="agent")
    assert result.merged_from == sorted([a.pk, b.pk, c.pk])
    assert (result.seen_count, result.retrieval_count) == (3 + 4 + 1, 2 + 5 + 0)
    assert result.status == "permanent"
    assert result.importance == 70
    for source in (a, b, c):
        source.refresh_from_db()
        assert (source.status, source.superseded_by_id) == ("archived", result.pk)
    event = AuditEvent.objects.get(action="merged")
    assert event.changes["merged_from"] == result.merged_from
    assert AuditEvent.objects.filter(action="superseded").count() == 3


def test_merge_of_active_sources_is_active(make):
    """Without a permanent source the result is active."""
    result = memory_merge(memories=[make(), make()], content="Both.", actor="agent")
    assert result.status == "active"


def test_single_memory_merge_is_refused(make):
    """A merge takes two or more memories; the same one twice is still one."""
    a = make()
    for memories in ([a], [a, a]):
        with pytest.raises(ValidationError, match="two or more"):
            memory_merge(memories=memories, content="Alone.", actor="agent")
    assert Memory.objects.count() == 1


def test_cross_category_merge_is_refused_and_nothing_written(make):
    """Sources share one category, or nothing is written."""
    a, b = make("OPS_RULES"), make("RESEARCH")
    with pytest.raises(ValidationError, match="within one category"):
        memory_merge(memories=[a, b], content="Mixed.", actor="agent")
    assert Memory.objects.count() == 2
    a.refresh_from_db()
    assert a.status == "active"
    assert not AuditEvent.objects.filter(action__in=["merged", "superseded"]).exists()


def test_cross_project_merge_is_refused(make, make_project):
    """A merge stays within one project, even where the category name is the same."""
    here = make()
    there = memory_create(
        project=make_project("ops-six"), category="OPS_RULES", content="Elsewhere.", actor="agent"
    )
    with pytest.raises(ValidationError, match="different projects"):
        memory_merge(memories=[here, there], content="Both.", actor="agent")
    assert Memory.objects.count() == 2
    assert not AuditEvent.objects.filter(action="merged").exists()


def test_archived_source_is_refused(make):
    """An archived memory is restored before it can be merged."""
    a, b = make(), make()
    memory_update(memory=b, status="archived", actor="agent")
    with pytest.raises(ValidationError, match="archived"):
        memory_merge(memories=[a, b], content="Both.", actor="agent")


def test_text_equal_to_a_source_is_refused(make):
    """The merged text must differ from each source's (the store keys dedup by text)."""
    a, b = make(), make()
    with pytest.raises(ValidationError, match="same as"):
        memory_merge(memories=[a, b], content=a.content.upper(), actor="agent")


def test_text_equal_to_another_memory_is_a_duplicate(make):
    """Another memory of the category with that text refuses the merge."""
    a, b, other = make(), make(), make()
    with pytest.raises(DuplicateMemory):
        memory_merge(memories=[a, b], content=other.content, actor="agent")


def test_empty_text_is_refused(make):
    """The person writes the result's text."""
    with pytest.raises(ValidationError, match="Write"):
        memory_merge(memories=[make(), make()], content="  ", actor="agent")


class TestRepointing:
    def test_members_pointing_at_a_source_point_at_the_result(self, make):
        """Members that were sources now name the result, in place."""
        head, a, x, b = make(), make(), make(), make()
        composite = composite_create(head=head, type="sequence", members=[a, x], actor="agent")
        result = memory_merge(memories=[a, b], content="A and B.", actor="agent")
        assert members_of(composite) == [result.pk, x.pk]

    def test_duplicates_collapse_keeping_the_earliest_position(self, make):
        """Two sources in one composite become one member, where the first one was."""
        head, x, a, y, b = make(), make(), make(), make(), make()
        composite = composite_create(
            head=head, type="sequence", members=[x, a, y, b], actor="agent"
        )
        result = memory_merge(memories=[a, b], content="A and B.", actor="agent")
        assert members_of(composite) == [x.pk, result.pk, y.pk]
        positions = list(composite.members.order_by("position").values_list("position", flat=True))
        assert positions == [0, 1, 2]

    def test_heads_pointing_at_a_source_point_at_the_result(self, make):
        """A composite headed by a source is now headed by the result."""
        a, b, x = make(), make(), make()
        composite = composite_create(head=a, type="theme", members=[x], actor="agent")
        result = memory_merge(memories=[a, b], content="A and B.", actor="agent")
        composite.refresh_from_db()
        assert composite.head_id == result.pk
        assert members_of(composite) == [x.pk]

    def test_a_member_equal_to_its_new_head_is_dropped(self, make):
        """Merging a head with one of its members drops that member row."""
        a, b, x = make(), make(), make()
        composite = composite_create(head=a, type="cause", members=[x, b], actor="agent")
        result = memory_merge(memories=[a, b], content="A and B.", actor="agent")
        composite.refresh_from_db()
        assert composite.head_id == result.pk
        assert members_of(composite) == [x.pk]

    def test_cursor_follows_its_member_through_the_merge(self, make):
        """The cursor stays on the step it marked, now at its collapsed position."""
        head, x, a, y, b = make(), make(), make(), make(), make()
        composite = composite_create(
            head=head, type="sequence", members=[x, a, y, b], actor="agent"
        )
        composite_cursor_set(composite=composite, position=2, actor="agent")
        memory_merge(memories=[a, b], content="A and B.", actor="agent")
        composite.refresh_from_db()
        assert members_of(composite)[composite.cursor] == y.pk

    def test_cursor_on_a_dropped_member_moves_to_the_next(self, make):
        """When the cursor's member becomes the head, the cursor takes the next step."""
        a, x, b, y = make(), make(), make(), make()
        composite = composite_create(head=a, type="sequence", members=[x, b, y], actor="agent")
        composite_cursor_set(composite=composite, position=1, actor="agent")
        memory_merge(memories=[a, b], content="A and B.", actor="agent")
        composite.refresh_from_db()
        assert members_of(composite) == [x.pk, y.pk]
        assert composite.cursor == 1

    def test_unrelated_composites_are_untouched(self, make):
        """Only composites citing a source change."""
        head, x, y, a, b = make(), make(), make(), make(), make()
        composite = composite_create(head=head, type="theme", members=[x, y], actor="agent")
        before = composite.updated_at
        memory_merge(memories=[a, b], content="A and B.", actor="agent")
        composite.refresh_from_db()
        assert composite.updated_at == before
        assert not AuditEvent.objects.filter(action="composite_repointed").exists()

    def test_each_touched_composite_is_recorded(self, make):
        """Every repointed composite has its own audit event with before and after."""
        head, a, b = make(), make(), make()
        first = composite_create(head=head, type="theme", members=[a], actor="agent")
        second = composite_create(head=a, type="theme", members=[b], actor="agent")
        result = memory_merge(memories=[a, b], content="A and B.", actor="agent")
        events = AuditEvent.objects.filter(action="composite_repointed").order_by("object_id")
        assert [e.object_id for e in events] == [str(first.pk), str(second.pk)]
        second.refresh_from_db()
        assert second.head_id == result.pk
        assert members_of(second) == []


class TestUndo:
    def test_undo_restores_sources_and_composites_and_removes_the_result(self, make):
        """Undo puts every source and composite back as it was before the merge."""
        head, x, a, y, b = make(), make(), make(), make(), make(status="permanent")
        sequence = composite_create(head=head, type="sequence", members=[x, a, y, b], actor="agent")
        headed = composite_create(head=a, type="theme", members=[x, b], actor="agent")
        composite_cursor_set(composite=sequence, position=3, actor="agent")
        result = memory_merge(memories=[a, b], content="A and B.", actor="agent")
        memory_merge_undo(result=result, actor="agent")
        assert not Memory.objects.filter(pk=result.pk).exists()
        a.refresh_from_db()
        b.refresh_from_db()
        assert (a.status, a.superseded_by_id) == ("active", None)
        assert (b.status, b.superseded_by_id) == ("permanent", None)
        sequence.refresh_from_db()
        headed.refresh_from_db()
        assert members_of(sequence) == [x.pk, a.pk, y.pk, b.pk]
        assert sequence.cursor == 3
        assert headed.head_id == a.pk
        assert members_of(headed) == [x.pk, b.pk]
        assert AuditEvent.objects.filter(action="merge_undone").count() == 1

    def test_undo_after_the_result_was_edited_is_refused(self, make):
        """An edited result is not silently thrown away."""
        result = memory_merge(memories=[make(), make()], content="Both.", actor="agent")
        memory_update(memory=result, content="Both, edited.", actor="agent")
        with pytest.raises(ValidationError, match="edited after the merge"):
            memory_merge_undo(result=result, actor="agent")
        assert Memory.objects.filter(pk=result.pk).exists()

    def test_undo_after_a_composite_changed_is_refused(self, make):
        """A composite edited since the merge is left for a person to sort out."""
        head, a, b, z = make(), make(), make(), make()
        composite = composite_create(head=head, type="theme", members=[a], actor="agent")
        result = memory_merge(memories=[a, b], content="Both.", actor="agent")
        composite_member_add(composite=composite, members=[z], actor="agent")
        with pytest.raises(ValidationError, match="changed since the merge"):
            memory_merge_undo(result=result, actor="agent")
        a.refresh_from_db()
        assert a.status == "archived"

    def test_undo_after_another_memory_was_superseded_by_the_result_is_refused(self, make):
        """Deleting the result would silently leave that memory superseded by nothing."""
        a, b, later = make(), make(), make()
        result = memory_merge(memories=[a, b], content="Both.", actor="agent")
        memory_supersede(memory=later, successor=result, actor="agent")
        with pytest.raises(ValidationError, match=f"#{later.display_id} was superseded"):
            memory_merge_undo(result=result, actor="agent")
        later.refresh_from_db()
        assert later.superseded_by_id == result.pk
        a.refresh_from_db()
        assert a.status == "archived"

    def test_undo_of_a_memory_not_made_by_merge_is_refused(self, make):
        """Only a merge result can be unmerged."""
        with pytest.raises(ValidationError, match="not made by a merge"):
            memory_merge_undo(result=make(), actor="agent")

    def test_merge_and_undo_leave_no_composite_rows_behind(self, make):
        """A round trip leaves the same number of composite rows."""
        head, a, b = make(), make(), make()
        composite_create(head=head, type="theme", members=[a, b], actor="agent")
        result = memory_merge(memories=[a, b], content="Both.", actor="agent")
        assert CompositeMember.objects.count() == 1
        memory_merge_undo(result=result, actor="agent")
        assert CompositeMember.objects.count() == 2
        assert Composite.objects.count() == 1


def composite_state(composite) -> tuple[int, list[int], int]:
    composite.refresh_from_db()
    return composite.head_id, members_of(composite), composite.cursor


SHAPES = st.lists(
    st.tuples(
        st.integers(0, 5),
        st.lists(st.integers(0, 5), max_size=5, unique=True),
        st.integers(0, 4),
    ),
    min_size=1,
    max_size=3,
)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(shapes=SHAPES, picked=st.sets(st.integers(0, 5), min_size=2, max_size=4))
def test_any_merge_repoints_by_the_rules_and_its_undo_restores_everything(make, shapes, picked):
    """Sources become the result in place, duplicates and the head drop out, undo is exact."""
    pool = [make() for _ in range(6)]
    composites = []
    for head, chosen, cursor in shapes:
        members = [pool[i] for i in chosen if i != head]
        composite = composite_create(
            head=pool[head], type="sequence", members=members, actor="agent"
        )
        if members:
            composite_cursor_set(composite=composite, position=cursor % len(members), actor="agent")
        composites.append(composite)
    before = [composite_state(composite) for composite in composites]
    sources = {pool[i].pk for i in picked}
    result = memory_merge(
        memories=[pool[i] for i in picked], content=f"Merged from {sorted(sources)}.", actor="agent"
    )

    def follow(memory_id: int) -> int:
        return result.pk if memory_id in sources else memory_id

    for composite, (head, members, cursor) in zip(composites, before, strict=True):
        new_head = follow(head)
        expected: list[int] = []
        for member in map(follow, members):
            if member != new_head and member not in expected:
                expected.append(member)
        now_head, now_members, now_cursor = composite_state(composite)
        assert (now_head, now_members) == (new_head, expected)
        assert (now_members == [] and now_cursor == 0) or 0 <= now_cursor < len(now_members)
        if members and follow(members[cursor]) in expected:
            assert now_members[now_cursor] == follow(members[cursor])
    memory_merge_undo(result=result, actor="agent")
    assert [composite_state(composite) for composite in composites] == before
