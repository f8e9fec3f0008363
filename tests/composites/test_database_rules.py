"""The database itself refuses a member equal to its head and a member twice (both engines)."""

import pytest
from django.db import IntegrityError, transaction

from memadmin.composites.models import Composite, CompositeMember
from memadmin.memories.services import memory_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio(project):
    return [
        memory_create(project=project, category="OPS_RULES", content=f"Step {i}.", actor="agent")
        for i in range(3)
    ]


def test_member_equal_to_head_is_refused_by_the_database(project, trio):
    """Inserting the head as its own member fails in the database."""
    composite = Composite.objects.create(project=project, type="sequence", head=trio[0])
    with pytest.raises(IntegrityError), transaction.atomic():
        CompositeMember.objects.create(composite=composite, member=trio[0], position=0)
    assert not CompositeMember.objects.exists()


def test_moving_a_member_onto_the_head_is_refused_by_the_database(project, trio):
    """Updating a member row to point at the head fails too."""
    composite = Composite.objects.create(project=project, type="theme", head=trio[0])
    member = CompositeMember.objects.create(composite=composite, member=trio[1], position=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        CompositeMember.objects.filter(pk=member.pk).update(member=trio[0])


def test_making_a_member_the_head_is_refused_by_the_database(project, trio):
    """Changing a composite's head to one of its members fails."""
    composite = Composite.objects.create(project=project, type="theme", head=trio[0])
    CompositeMember.objects.create(composite=composite, member=trio[1], position=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Composite.objects.filter(pk=composite.pk).update(head=trio[1])


def test_member_twice_is_refused_by_the_database(project, trio):
    """A memory appears at most once in one composite."""
    composite = Composite.objects.create(project=project, type="theme", head=trio[0])
    CompositeMember.objects.create(composite=composite, member=trio[1], position=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        CompositeMember.objects.create(composite=composite, member=trio[1], position=1)


def test_a_memory_may_head_several_composites_and_belong_to_many(project, trio):
    """Star topology: no uniqueness on heads, membership is n:n."""
    first = Composite.objects.create(project=project, type="theme", head=trio[0])
    second = Composite.objects.create(project=project, type="cause", head=trio[0])
    for composite in (first, second):
        CompositeMember.objects.create(composite=composite, member=trio[1], position=0)
    assert trio[0].headed_composites.count() == 2
    assert trio[1].memberships.count() == 2
