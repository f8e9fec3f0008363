"""Reverting a memory or a category's criteria: a new version, or a refusal with the reason."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.curation.merge_services import memory_merge
from memadmin.history.revert_services import criteria_revert, memory_revert
from memadmin.history.selectors import criteria_versions, memory_versions
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import criteria_override_save

pytestmark = pytest.mark.django_db


def written():
    """Return how many audit events and memory versions exist, to show nothing was written."""
    return AuditEvent.objects.count(), Memory.history.count()


def test_revert_records_a_new_version_with_the_old_values(make_memory, people):
    """History is never rewritten: the revert is version 3, equal to version 1."""
    memory = make_memory("Deploy with just deploy.", importance=40)
    memory_update(memory=memory, actor="historian", content="Deploy by hand.", importance=90)
    first = memory_versions(memory.pk)[0]
    reverted = memory_revert(
        memory=memory, version=first, actor=people["editor"], reason="the edit was wrong"
    )
    assert (reverted.content, reverted.importance) == ("Deploy with just deploy.", 40)
    versions = memory_versions(memory.pk)
    assert len(versions) == 3
    assert versions[-1].history_actor == "editor"
    assert versions[-1].history_change_reason == "Reverted to version 1: the edit was wrong"
    assert versions[1].content == "Deploy by hand."


def test_revert_is_recorded_as_a_revert_and_named_so_on_the_timeline(make_memory, people):
    """The log can be filtered to reverts; the timeline heads the entry "reverted", with its diff."""
    from memadmin.history.timeline import memory_timeline

    memory = make_memory("Deploy with just deploy.")
    memory_update(memory=memory, actor="historian", content="Deploy by hand.")
    memory_revert(memory=memory, version=memory_versions(memory.pk)[0], actor=people["editor"])
    event = AuditEvent.objects.get(action="reverted")
    assert (event.object_id, event.actor_label) == (str(memory.pk), "editor")
    assert event.changes["content"] == ["Deploy by hand.", "Deploy with just deploy."]
    newest = memory_timeline(memory)[0]
    assert newest.kinds == ["reverted", "edited"]
    assert (newest.label, newest.reason) == (
        "reverted to an earlier version",
        "Reverted to version 1.",
    )
    assert newest.diff


def test_revert_of_the_text_brings_back_the_versions_shareable_flag(make_memory, people):
    """A new text resets the shareable flag, but a revert restores the version's whole state."""
    memory = make_memory("Use the staging cluster for load tests.")
    memory_update(memory=memory, actor="agent", shareable=True)
    memory_update(memory=memory, actor="agent", content="Use prod for load tests.", shareable=True)
    shared_first = memory_versions(memory.pk)[1]
    assert shared_first.shareable
    reverted = memory_revert(memory=memory, version=shared_first, actor=people["editor"])
    assert (reverted.content, reverted.shareable) == (shared_first.content, True)


def test_revert_can_restore_the_category(make_memory, people):
    """A version in another category that is still in the pack comes back whole."""
    memory = make_memory("Benchmarks of the cache.", category="RESEARCH")
    memory_update(memory=memory, actor="dreamer", category="INCIDENTS")
    memory_revert(memory=memory, version=memory_versions(memory.pk)[0], actor=people["editor"])
    memory.refresh_from_db()
    assert memory.category == "RESEARCH"


def test_revert_to_a_category_no_longer_in_the_pack_is_refused(make_memory, rename_research):
    """After an upgrade renamed RESEARCH, the version filed under RESEARCH cannot return."""
    memory = make_memory("Benchmarks of the cache.", category="RESEARCH")
    rename_research()
    memory.refresh_from_db()
    assert memory.category == "STUDIES"
    before = written()
    with pytest.raises(ValidationError) as refused:
        memory_revert(memory=memory, version=memory_versions(memory.pk)[0], actor="agent")
    assert refused.value.code == "category_gone"
    assert "RESEARCH, which is no longer a category" in refused.value.message
    assert written() == before


def test_revert_that_would_duplicate_another_memory_is_refused(make_memory):
    """If another memory now holds the old text, the revert says which one."""
    memory = make_memory("Restart the worker nightly.")
    memory_update(memory=memory, actor="agent", content="Restart the worker weekly.")
    other = make_memory("restart the worker  NIGHTLY.")
    before = written()
    with pytest.raises(ValidationError) as refused:
        memory_revert(memory=memory, version=memory_versions(memory.pk)[0], actor="agent")
    assert refused.value.code == "duplicate"
    assert f"#{other.display_id}" in refused.value.message
    assert written() == before


def test_revert_to_a_version_of_another_memory_is_refused(make_memory):
    """A version is only ever restored onto its own memory."""
    memory = make_memory("One.")
    other = make_memory("Two.")
    before = written()
    with pytest.raises(ValidationError) as refused:
        memory_revert(memory=memory, version=memory_versions(other.pk)[0], actor="agent")
    assert refused.value.code == "foreign"
    assert written() == before


def test_revert_to_the_current_state_is_refused(make_memory):
    """Reverting to a version the memory already matches writes nothing."""
    memory = make_memory("Same.")
    with pytest.raises(ValidationError) as refused:
        memory_revert(memory=memory, version=memory_versions(memory.pk)[0], actor="agent")
    assert refused.value.code == "unchanged"


def test_a_merged_source_cannot_be_made_active_by_a_revert(make_memory, people):
    """A memory superseded by a merge stays archived; the merge must be undone instead."""
    first = make_memory("Drain first.")
    second = make_memory("Drain before reboot.")
    memory_merge(memories=[first, second], content="Drain before any reboot.", actor="agent")
    first.refresh_from_db()
    with pytest.raises(ValidationError) as refused:
        memory_revert(memory=first, version=memory_versions(first.pk)[0], actor=people["editor"])
    assert refused.value.code == "superseded"


# --- criteria


def override(project, name: str, **changes):
    category = category_by_name(project, name)
    return criteria_override_save(
        category=category, criteria={**category.effective_criteria, **changes}, actor="system"
    )


def test_criteria_revert_puts_the_old_text_in_force_as_a_new_version(project, people):
    """Reverting to an override's version brings that override back through the service."""
    override(project, "OPS_RULES", definition="First wording.")
    override(project, "OPS_RULES", definition="Second wording.")
    versions = criteria_versions(project.pk, "OPS_RULES")
    category = criteria_revert(version=versions[1], actor=people["curator"], reason="clearer")
    assert category.effective_criteria["definition"] == "First wording."
    newest = criteria_versions(project.pk, "OPS_RULES")[-1]
    assert newest.history_change_reason == "Reverted to version 2: clearer"
    assert newest.history_actor == "curator"
    assert AuditEvent.objects.filter(action="criteria_override_saved").count() == 2
    reverted = AuditEvent.objects.get(action="criteria_reverted")
    assert (reverted.category, reverted.actor_label) == ("OPS_RULES", "curator")


def test_criteria_revert_to_the_pack_default_clears_the_override(project):
    """The first version used the pack default: reverting to it clears the override."""
    override(project, "OPS_RULES", definition="Ours.")
    first = criteria_versions(project.pk, "OPS_RULES")[0]
    category = criteria_revert(version=first, actor="system")
    assert not category.is_overridden


def test_criteria_revert_of_a_category_no_longer_in_the_pack_is_refused(project, rename_research):
    """RESEARCH is gone after the upgrade: its versions remain, and cannot be put back."""
    override(project, "RESEARCH", definition="Our research rules.")
    rename_research()
    versions = criteria_versions(project.pk, "RESEARCH")
    assert versions[-1].history_type == "-"
    before = AuditEvent.objects.count()
    with pytest.raises(ValidationError) as refused:
        criteria_revert(version=versions[1], actor="system")
    assert refused.value.code == "category_gone"
    assert AuditEvent.objects.count() == before


def test_criteria_revert_to_the_criteria_in_force_is_refused(project):
    """Nothing to put back: the criteria of that version are the ones in force."""
    with pytest.raises(ValidationError) as refused:
        criteria_revert(version=criteria_versions(project.pk, "OPS_RULES")[0], actor="system")
    assert refused.value.code == "unchanged"
