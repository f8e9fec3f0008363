"""Memory services: the upstream hash, the duplicate rule, validation and audit records."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from memadmin.audit.models import AuditEvent
from memadmin.core.hashing import normalized_hash
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import DuplicateMemory, StaleEdit, memory_create, memory_update
from memadmin.projects.services import project_create, project_set_budget

pytestmark = pytest.mark.django_db


def test_hash_matches_upstream_normalisation():
    """The hash is MD5 of the lower-cased, whitespace-folded, trimmed content."""
    import hashlib

    assert (
        normalized_hash("  Use  UV\tfor\n\nPython ")
        == hashlib.md5(b"use uv for python").hexdigest()
    )


def test_create_writes_memory_and_audit_event(project):
    """Creating a memory stores its hash and records who made it."""
    memory = memory_create(
        project=project, category="OPS_RULES", content="Deploy with just deploy.", actor="agent"
    )
    assert memory.normalized_hash == normalized_hash("Deploy with just deploy.")
    event = AuditEvent.objects.get(object_type="memory", object_id=str(memory.pk))
    assert (event.action, event.actor_label, event.actor_kind) == ("created", "agent", "agent")
    assert memory.history.first().history_actor == "agent"


def test_exact_duplicate_is_refused_with_the_existing_memory(project):
    """An exact duplicate (modulo case and whitespace) in the same category is refused."""
    first = memory_create(
        project=project, category="OPS_RULES", content="Drain first.", actor="agent"
    )
    with pytest.raises(DuplicateMemory) as refused:
        memory_create(
            project=project, category="OPS_RULES", content="  drain   FIRST. ", actor="agent"
        )
    assert refused.value.existing == first
    assert Memory.objects.count() == 1


def test_same_content_in_another_category_is_allowed(project):
    """Dedup is keyed by category, as upstream's UNIQUE(project, category, hash)."""
    memory_create(project=project, category="OPS_RULES", content="Same text.", actor="agent")
    memory_create(project=project, category="RESEARCH", content="Same text.", actor="agent")
    assert Memory.objects.count() == 2


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"category": "PROJECT_RULES"}, "category", "not a category"),
        ({"importance": 0}, "importance", "between 1 and 100"),
        ({"importance": 101}, "importance", "between 1 and 100"),
        ({"content": "   "}, "content", "needs some content"),
        ({"status": "deleted"}, "status", "must be one of"),
    ],
)
def test_bad_input_is_refused_and_nothing_written(project, fields, field, message):
    """Unknown categories, out-of-range importance, empty content: refused with a message."""
    kwargs = {"category": "OPS_RULES", "content": "Valid content.", **fields}
    with pytest.raises(ValidationError) as refused:
        memory_create(project=project, actor="agent", **kwargs)
    assert message in " ".join(refused.value.message_dict[field])
    assert Memory.objects.count() == 0
    assert not AuditEvent.objects.filter(action="created").exists()


def test_update_recomputes_hash_and_resets_shareable(project):
    """A content edit recomputes the hash and resets shareable and classified_at, as upstream."""
    memory = memory_create(
        project=project, category="OPS_RULES", content="Old rule.", actor="agent", shareable=True
    )
    Memory.objects.filter(pk=memory.pk).update(classified_at=123)
    updated = memory_update(memory=memory, actor="dreamer", content="New rule.")
    assert updated.normalized_hash == normalized_hash("New rule.")
    assert updated.shareable is False
    assert updated.classified_at is None
    assert AuditEvent.objects.filter(action="edited", actor_label="dreamer").count() == 1


def test_second_save_of_the_same_version_is_refused(project):
    """Two people editing the same memory: the second save is refused, the first kept."""
    memory = memory_create(project=project, category="OPS_RULES", content="Base.", actor="agent")
    version = memory.updated_at
    memory_update(memory=memory, actor="agent", content="First edit.", expected_updated_at=version)
    with pytest.raises(StaleEdit) as refused:
        memory_update(memory=memory, actor="agent", content="Second.", expected_updated_at=version)
    assert refused.value.current.content == "First edit."
    memory.refresh_from_db()
    assert memory.content == "First edit."


def test_budget_out_of_range_is_refused(project):
    """A budget outside 500..20000 is refused by the service."""
    for budget in (499, 20001):
        with pytest.raises(ValidationError, match="between 500 and 20000"):
            project_set_budget(project=project, budget=budget, actor="agent")
    project.refresh_from_db()
    assert project.injection_budget == 4000


def test_database_refuses_budget_and_importance_out_of_range(project):
    """The database's own check constraints refuse what the services refuse."""
    from memadmin.projects.models import Project

    with pytest.raises(IntegrityError), transaction.atomic():
        Project.objects.filter(pk=project.pk).update(injection_budget=100)
    memory = memory_create(project=project, category="OPS_RULES", content="x y", actor="agent")
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.filter(pk=memory.pk).update(importance=500)


def test_database_refuses_duplicate_hash(project):
    """The unique (project, category, normalized_hash) constraint holds in the database."""
    memory = memory_create(project=project, category="OPS_RULES", content="Dup.", actor="agent")
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.create(
            project=project,
            category="OPS_RULES",
            content="DUP.",
            normalized_hash=memory.normalized_hash,
            first_seen_at=1,
            created_at=1,
            updated_at=1,
            last_seen_at=1,
        )


def test_project_identity_must_be_upstream_shaped(db):
    """A project identity is git:<sha> or dir:<hash>."""
    with pytest.raises(ValidationError, match="git:<root-commit-sha>"):
        project_create(identity="/home/me/project", name="x", actor="agent")


def test_a_superseded_memory_cannot_be_made_live_again(project):
    """Editing a superseded memory's status back to active is refused; it stays archived."""
    from memadmin.memories.archive_services import memory_supersede

    old = memory_create(project=project, category="OPS_RULES", content="Old way.", actor="agent")
    new = memory_create(project=project, category="OPS_RULES", content="New way.", actor="agent")
    memory_supersede(memory=old, successor=new, actor="dreamer")
    with pytest.raises(ValidationError, match="superseded"):
        memory_update(memory=old, actor="agent", status="active")
    old.refresh_from_db()
    assert old.status == "archived" and old.superseded_by == new


def test_a_status_edit_is_recorded_as_what_it_is(project):
    """Only archived back to live is a restore; active and permanent swap as a status change."""
    memory = memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    for status in ("permanent", "active", "archived", "permanent", "archived", "active"):
        memory_update(memory=memory, actor="agent", status=status)
    events = (
        AuditEvent.objects.filter(object_type="memory", object_id=str(memory.pk))
        .exclude(action="created")
        .order_by("id")
    )
    assert [(event.action, event.changes["status"]) for event in events] == [
        ("status_changed", ["active", "permanent"]),
        ("status_changed", ["permanent", "active"]),
        ("archived", ["active", "archived"]),
        ("restored", ["archived", "permanent"]),
        ("archived", ["permanent", "archived"]),
        ("restored", ["archived", "active"]),
    ]


@pytest.mark.parametrize("status", ["active", "permanent"])
def test_a_restore_drops_the_archive_reason_and_the_history_keeps_it(project, status):
    """Edited back from archived, the memory loses its archive reason; its history has it."""
    memory = memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    Memory.objects.filter(pk=memory.pk).update(metadata={"source": "import"})
    memory_archive(memory=memory, actor="agent", reason="Replaced")
    restored = memory_update(memory=memory, actor="agent", status=status)
    assert restored.metadata == {"source": "import"}
    assert Memory.objects.get(pk=memory.pk).metadata == {"source": "import"}
    event = AuditEvent.objects.filter(object_id=str(memory.pk)).latest("id")
    assert event.action == "restored"
    assert event.changes == {
        "status": ["archived", status],
        "metadata": [{"source": "import", "archive_reason": "Replaced"}, {"source": "import"}],
    }
    archived_version = memory.history.all()[1]
    assert archived_version.metadata["archive_reason"] == "Replaced"


def test_an_edit_to_archived_keeps_its_reason_as_an_archive_does(project):
    """memory_update archiving a memory records the edit's reason in the metadata and event."""
    memory = memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    Memory.objects.filter(pk=memory.pk).update(metadata={"source": "import"})
    archived = memory_update(
        memory=memory, actor="agent", status="archived", reason="Replaced", at_ms=memory.updated_at
    )
    stored = Memory.objects.get(pk=memory.pk)
    assert stored.metadata == {"source": "import", "archive_reason": "Replaced"}
    assert (archived.status, stored.updated_at) == ("archived", memory.updated_at + 1)
    event = AuditEvent.objects.filter(object_id=str(memory.pk)).latest("id")
    assert (event.action, event.reason) == ("archived", "Replaced")
    assert event.changes == {"status": ["active", "archived"]}
    assert stored.history.first().metadata["archive_reason"] == "Replaced"
    restored = memory_update(memory=memory, actor="agent", status="active")
    assert restored.metadata == {"source": "import"}


def test_an_edit_to_archived_without_a_reason_leaves_the_metadata(project):
    """With no reason given, archiving by edit writes no archive reason."""
    memory = memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    memory_update(memory=memory, actor="agent", status="archived")
    assert Memory.objects.get(pk=memory.pk).metadata == {}


def test_archive_keeps_the_reason_in_history_event_and_metadata(project):
    """Archiving one memory records the reason three ways and refuses a second archive."""
    memory = memory_create(
        project=project, category="OPS_RULES", content="Old rule.", actor="agent"
    )
    archived = memory_archive(memory=memory, actor="agent", reason="Replaced")
    assert (archived.status, archived.metadata) == ("archived", {"archive_reason": "Replaced"})
    assert archived.updated_at > memory.updated_at
    event = AuditEvent.objects.get(action="archived", object_id=str(memory.pk))
    assert (event.reason, event.changes) == ("Replaced", {"status": ["active", "archived"]})
    assert archived.history.first().history_change_reason == "Replaced"
    with pytest.raises(ValidationError, match="already archived"):
        memory_archive(memory=memory, actor="agent")
