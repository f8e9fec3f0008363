"""Criteria services: overrides, the concurrent-edit refusal, audit events and the surface hash."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.core.packs import DEFINITION_MAX
from memadmin.core.prompts import HISTORIAN
from memadmin.projects.models import Project
from memadmin.projects.services import project_create
from memadmin.taxonomy.models import Category, SurfaceHashRecord
from memadmin.taxonomy.selectors import (
    category_by_name,
    current_surface_hash,
    prompt_texts,
    surface_history,
    surface_state,
)
from memadmin.taxonomy.services import (
    StaleCriteria,
    criteria_override_clear,
    criteria_override_keep,
    criteria_override_save,
    criteria_validate,
    pack_install,
    pack_load,
)

pytestmark = pytest.mark.django_db


def edited(category: Category, **changes) -> dict:
    return {**category.effective_criteria, **changes}


def test_install_records_the_first_surface_hash(project):
    """Installing a pack records the surface hash of the texts it produces."""
    record = surface_history(project).get()
    assert record.value == current_surface_hash(project)
    assert record.change == "pack ops-six 1.0.0 installed"
    assert (record.actor_label, record.actor_kind) == ("system", "agent")
    assert record.audit_event.action == "pack_installed"


def test_an_install_from_a_project_read_before_another_install_sees_that_install():
    """A caller holding the project as read before its pack was installed (a sync, the `pack`
    command, at the same time) gets that pack back for the same pack, and a clear refusal
    naming the upgrade for another; nothing is written twice either way."""
    fresh = project_create(identity="git:" + "c" * 40, name="Twice", actor="system")
    read_before = [Project.objects.get(pk=fresh.pk) for _ in range(2)]
    installed = pack_install(project=fresh, spec=pack_load("ops-six"), actor="system")
    writes = (Category.objects.count(), AuditEvent.objects.count())

    again = pack_install(project=read_before[0], spec=pack_load("ops-six"), actor="system")
    assert again == installed
    with pytest.raises(ValidationError, match="pack upgrade magic-context"):
        pack_install(project=read_before[1], spec=pack_load("magic-context"), actor="system")
    assert (Category.objects.count(), AuditEvent.objects.count()) == writes


def test_saving_an_override_changes_the_effective_criteria_and_keeps_the_default(project, people):
    """An override replaces the text in force; the pack default stays beside it."""
    category = category_by_name(project, "OPS_RULES")
    default = category.default_criteria
    saved = criteria_override_save(
        category=category,
        criteria=edited(category, definition="Standing operating rules only."),
        actor=people["curator"],
        expected_revision=category.revision,
    )
    assert saved.is_overridden
    assert saved.effective_criteria["definition"] == "Standing operating rules only."
    assert saved.default_criteria == default
    assert saved.revision == category.revision + 1
    assert "Standing operating rules only." in prompt_texts(project)[HISTORIAN]


def test_saving_records_an_audit_event_with_the_changed_fields(project, people):
    """The audit event names the actor and holds the old and new text of each changed field."""
    category = category_by_name(project, "OPS_RULES")
    old = category.effective_criteria["definition"]
    criteria_override_save(
        category=category,
        criteria=edited(category, definition="New words."),
        actor=people["curator"],
        reason="Sharper",
    )
    event = AuditEvent.objects.get(action="criteria_override_saved")
    assert event.actor_label == "curator"
    assert event.category == "OPS_RULES"
    assert event.reason == "Sharper"
    assert event.changes == {"definition": [old, "New words."]}
    assert Category.objects.get(pk=category.pk).history.first().history_actor == "curator"


def test_one_edited_word_records_a_new_surface_hash_with_who_and_what(project, people):
    """One changed word changes the surface hash; the record names the change and the actor."""
    before = current_surface_hash(project)
    category = category_by_name(project, "OPS_RULES")
    definition = category.effective_criteria["definition"]
    criteria_override_save(
        category=category,
        criteria=edited(category, definition=definition.replace("procedure", "method", 1)),
        actor=people["curator"],
    )
    after = current_surface_hash(project)
    assert after != before
    record = surface_history(project).first()
    assert (record.value, record.previous_value) == (after, before)
    assert record.change == "OPS_RULES: criteria edited (definition)"
    assert (record.actor_label, record.actor_kind, record.actor_user) == (
        "curator",
        "person",
        people["curator"],
    )
    assert record.audit_event.action == "criteria_override_saved"
    assert surface_state(project).recorded


def test_a_save_that_changes_nothing_changes_nothing(project, people):
    """Saving the criteria in force writes no revision, no event and no hash record."""
    category = category_by_name(project, "OPS_RULES")
    records = SurfaceHashRecord.objects.count()
    events = AuditEvent.objects.count()
    hash_before = current_surface_hash(project)
    padded = edited(category, definition="  " + category.effective_criteria["definition"] + "\n")
    saved = criteria_override_save(
        category=category,
        criteria=padded,
        actor=people["curator"],
        expected_revision=category.revision,
    )
    assert saved.revision == category.revision
    assert not saved.is_overridden
    assert SurfaceHashRecord.objects.count() == records
    assert AuditEvent.objects.count() == events
    assert current_surface_hash(project) == hash_before


def test_saving_the_pack_text_again_clears_the_override(project, people):
    """An override edited back to the pack default is no override."""
    category = category_by_name(project, "OPS_RULES")
    default = category.default_criteria
    changed = criteria_override_save(
        category=category, criteria=edited(category, hard_stop="Stop."), actor=people["curator"]
    )
    back = criteria_override_save(category=changed, criteria=default, actor=people["curator"])
    assert not back.is_overridden
    assert AuditEvent.objects.filter(action="criteria_override_cleared").count() == 1


def test_clearing_the_override_restores_the_pack_text_and_the_hash(project, people):
    """Clearing returns to the pack default; the surface hash takes its old value again."""
    category = category_by_name(project, "ENV_STATE")
    original_hash = current_surface_hash(project)
    changed = criteria_override_save(
        category=category,
        criteria=edited(category, test_question="Is it about the machines?"),
        actor=people["curator"],
    )
    cleared = criteria_override_clear(
        category=changed, actor=people["curator"], expected_revision=changed.revision
    )
    assert not cleared.is_overridden
    assert cleared.effective_criteria == category.default_criteria
    assert current_surface_hash(project) == original_hash
    latest = surface_history(project).first()
    assert latest.value == original_hash
    assert latest.change == "ENV_STATE: override cleared (test question)"
    assert surface_history(project).count() == 3


def test_clearing_without_an_override_changes_nothing(project, people):
    """There is nothing to clear on a category that runs its pack default."""
    category = category_by_name(project, "ENV_STATE")
    cleared = criteria_override_clear(category=category, actor=people["curator"])
    assert cleared.revision == category.revision
    assert not AuditEvent.objects.filter(action="criteria_override_cleared").exists()


def test_the_second_of_two_concurrent_saves_is_refused_with_both_texts(project, people):
    """Two people edit from the same revision: the second save is refused and nothing is lost."""
    category = category_by_name(project, "INCIDENTS")
    revision = category.revision
    criteria_override_save(
        category=category,
        criteria=edited(category, definition="Alice's words."),
        actor=people["curator"],
        expected_revision=revision,
    )
    with pytest.raises(StaleCriteria) as refused:
        criteria_override_save(
            category=category,
            criteria=edited(category, definition="Bob's words."),
            actor=people["admin"],
            expected_revision=revision,
        )
    assert refused.value.current.effective_criteria["definition"] == "Alice's words."
    assert refused.value.yours["definition"] == "Bob's words."
    stored = Category.objects.get(pk=category.pk)
    assert stored.effective_criteria["definition"] == "Alice's words."
    assert stored.revision == revision + 1


def test_a_stale_save_of_the_text_already_in_force_is_not_refused(project, people):
    """Saving what the other person already saved loses nothing, so it is no conflict."""
    category = category_by_name(project, "INCIDENTS")
    revision = category.revision
    criteria = edited(category, definition="Same words.")
    criteria_override_save(
        category=category, criteria=criteria, actor=people["curator"], expected_revision=revision
    )
    again = criteria_override_save(
        category=category, criteria=criteria, actor=people["admin"], expected_revision=revision
    )
    assert again.revision == revision + 1


def test_a_stale_clear_is_refused(project, people):
    """Clearing from an old revision is refused like a stale save."""
    category = category_by_name(project, "INCIDENTS")
    changed = criteria_override_save(
        category=category, criteria=edited(category, hard_stop="Never."), actor=people["curator"]
    )
    with pytest.raises(StaleCriteria):
        criteria_override_clear(
            category=changed, actor=people["curator"], expected_revision=category.revision
        )
    assert Category.objects.get(pk=category.pk).is_overridden


def test_a_stale_clear_hands_back_their_version_and_writes_nothing(project, people):
    """The refusal carries the version in force and the pack text the clear asked for."""
    category = category_by_name(project, "INCIDENTS")
    first = criteria_override_save(
        category=category, criteria=edited(category, hard_stop="Never."), actor=people["curator"]
    )
    second = criteria_override_save(
        category=first, criteria=edited(first, hard_stop="Not ever."), actor=people["admin"]
    )
    events = AuditEvent.objects.count()
    with pytest.raises(StaleCriteria) as refused:
        criteria_override_clear(
            category=first, actor=people["curator"], expected_revision=first.revision
        )
    assert refused.value.current.effective_criteria["hard_stop"] == "Not ever."
    assert refused.value.yours == category.default_criteria
    stored = Category.objects.get(pk=category.pk)
    assert (stored.revision, stored.effective_criteria) == (
        second.revision,
        second.effective_criteria,
    )
    assert AuditEvent.objects.count() == events


def test_clearing_records_who_why_and_the_texts_and_lowers_a_moved_default(project, people):
    """A clear bumps the revision, drops the moved-default flag, and audits actor and reason."""
    category = category_by_name(project, "RESEARCH")
    saved = criteria_override_save(
        category=category, criteria=edited(category, hard_stop="Cite."), actor=people["curator"]
    )
    Category.objects.filter(pk=saved.pk).update(
        default_moved=True, previous_default=saved.default_criteria
    )
    cleared = criteria_override_clear(
        category=saved, actor=people["admin"], expected_revision=saved.revision, reason="Too strict"
    )
    stored = Category.objects.get(pk=category.pk)
    assert stored.revision == saved.revision + 1 == cleared.revision
    assert (stored.override_criteria, stored.default_moved, stored.previous_default) == (
        None,
        False,
        None,
    )
    event = AuditEvent.objects.filter(action="criteria_override_cleared").get()
    assert (event.actor_label, event.reason, event.category) == ("admin", "Too strict", "RESEARCH")
    assert event.changes == {"hard_stop": ["Cite.", ""]}
    record = surface_history(project).first()
    assert record.audit_event == event
    assert record.change == "RESEARCH: override cleared (hard stop)"
    assert stored.history.first().history_change_reason == "Too strict"


def test_saving_the_pack_text_is_recorded_as_an_edit_that_clears(project, people):
    """Edited back to the pack text, the event says cleared and the hash record says edited."""
    category = category_by_name(project, "OPS_RULES")
    changed = criteria_override_save(
        category=category, criteria=edited(category, hard_stop="Stop."), actor=people["curator"]
    )
    back = criteria_override_save(
        category=changed,
        criteria=category.default_criteria,
        actor=people["admin"],
        expected_revision=changed.revision,
        reason="Pack text is fine",
    )
    assert (back.override_criteria, back.revision) == (None, changed.revision + 1)
    event = AuditEvent.objects.filter(action="criteria_override_cleared").get()
    assert (event.actor_label, event.reason) == ("admin", "Pack text is fine")
    assert event.changes == {"hard_stop": ["Stop.", category.default_criteria["hard_stop"]]}
    assert surface_history(project).first().change == "OPS_RULES: criteria edited (hard stop)"


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"definition": "   "}, "definition", "Definition must be a non-empty string."),
        (
            {"definition": "x" * (DEFINITION_MAX + 1)},
            "definition",
            f"the limit is {DEFINITION_MAX}",
        ),
        ({"test_question": "Two\nlines?"}, "test_question", "must be a single line"),
        (
            {"negative_examples": [{"example": "A thing.", "reason": ""}]},
            "negative_examples",
            "Does not belong here, item 1, reason must be a non-empty string.",
        ),
        ({"positive_examples": ["ok"] * 21}, "positive_examples", "the limit is 20"),
    ],
)
def test_bad_criteria_are_refused_by_field_and_nothing_is_written(
    project, people, changes, field, message
):
    """Criteria breaking the pack's rules are refused with the field named; nothing changes."""
    category = category_by_name(project, "RESEARCH")
    with pytest.raises(ValidationError) as refused:
        criteria_override_save(
            category=category, criteria=edited(category, **changes), actor=people["curator"]
        )
    assert message in " ".join(refused.value.message_dict[field])
    stored = Category.objects.get(pk=category.pk)
    assert not stored.is_overridden
    assert stored.revision == category.revision


def test_validation_trims_and_drops_an_empty_hard_stop():
    """Stored criteria are trimmed, and an empty hard stop is left out."""
    criteria = {
        "test_question": " Q? ",
        "definition": " D. ",
        "positive_examples": [" p "],
        "negative_examples": [],
        "exclusions": [],
        "hard_stop": "",
    }
    assert criteria_validate(criteria) == {
        "test_question": "Q?",
        "definition": "D.",
        "positive_examples": ["p"],
        "negative_examples": [],
        "exclusions": [],
    }


def test_markup_is_kept_as_text(project, people):
    """HTML in a criteria field is stored exactly, to be escaped wherever it is shown."""
    category = category_by_name(project, "RESEARCH")
    saved = criteria_override_save(
        category=category,
        criteria=edited(category, definition="<script>alert(1)</script> & more"),
        actor=people["curator"],
    )
    assert saved.effective_criteria["definition"] == "<script>alert(1)</script> & more"


def test_keeping_a_moved_override_lowers_the_flag(project, people):
    """Keeping an override whose default moved clears the flag and keeps the override."""
    category = category_by_name(project, "RESEARCH")
    saved = criteria_override_save(
        category=category, criteria=edited(category, hard_stop="Cite."), actor=people["curator"]
    )
    Category.objects.filter(pk=saved.pk).update(
        default_moved=True, previous_default=saved.default_criteria
    )
    kept = criteria_override_keep(category=saved, actor=people["curator"])
    assert not kept.default_moved
    assert kept.previous_default is None
    assert kept.effective_criteria["hard_stop"] == "Cite."
    assert AuditEvent.objects.filter(action="criteria_override_kept").count() == 1
