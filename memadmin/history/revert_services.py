"""Revert a memory or a category's criteria to an earlier version.

A revert never rewrites history: it saves the earlier version's values as a new version,
through the same service a person's edit goes through (`memory_update`,
`criteria_override_save`), so every rule of an edit holds for a revert too, and the new
version's reason names the version it restores.
"""

from collections.abc import Mapping

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.core.hashing import normalized_hash
from memadmin.memories.models import Memory
from memadmin.memories.revision_fields import revision_for
from memadmin.memories.services import EDITABLE_FIELDS, StaleEdit, memory_update
from memadmin.taxonomy.models import Category
from memadmin.taxonomy.selectors import category_names
from memadmin.taxonomy.services import StaleCriteria, criteria_override_save

from .selectors import effective_criteria_of

# The audit actions a revert records, so the log can be filtered to reverts.
REVERTED = "reverted"
CRITERIA_REVERTED = "criteria_reverted"


def revert_reason(number: int, reason: str) -> str:
    """Return the reason a revert records: which version it restores, and why."""
    return f"Reverted to version {number}" + (f": {reason}" if reason else ".")


@transaction.atomic
def memory_revert(
    *,
    memory,
    version,
    actor,
    reason: str = "",
    expected_updated_at: int | None = None,
    expected_revisions: Mapping[int, int] | None = None,
):
    """Save a memory's earlier version (a historical row) as its newest version.

    The text, category, importance, scope, shareable flag and status come back. Refused
    with the reason, nothing written: a version of another memory, a category no longer
    in the project's pack, text that duplicates another memory of that category, making a
    superseded memory active again, or a version that matches the memory already. If
    `expected_updated_at` is given and the memory was saved since, StaleEdit is raised;
    given `expected_revisions` (the store revision the page read), a store row the agent
    revised since refuses the revert (StoreRowChanged), nothing written.
    """
    number = getattr(version, "number", None) or version.history_id
    if version.id != memory.pk:
        raise ValidationError(
            f"Version {version.history_id} is a version of another memory.", code="foreign"
        )
    current_memory = Memory.objects.select_for_update().select_related("project").get(pk=memory.pk)
    if expected_updated_at is not None and current_memory.updated_at != expected_updated_at:
        raise StaleEdit(current_memory)
    project = current_memory.project
    wanted = {name: getattr(version, name) for name in EDITABLE_FIELDS}
    refusal = _refusal(current_memory, wanted, number, category_names(project))
    if refusal is not None:
        raise refusal
    duplicate = (
        Memory.objects.filter(
            project=project,
            category=wanted["category"],
            normalized_hash=normalized_hash(wanted["content"]),
        )
        .exclude(pk=current_memory.pk)
        .first()
    )
    if duplicate is not None:
        raise ValidationError(
            f"Version {number}'s text is a duplicate of memory #{duplicate.display_id} "
            f"in {duplicate.category}; merge the two instead.",
            code="duplicate",
        )
    changes = {n: v for n, v in wanted.items() if getattr(current_memory, n) != v}
    if "content" in changes:
        # A new text resets the shareable flag unless it is given: give the version's.
        changes["shareable"] = wanted["shareable"]
    return memory_update(
        memory=current_memory,
        actor=actor,
        reason=revert_reason(number, reason),
        action=REVERTED,
        expected_revision=revision_for(expected_revisions, current_memory),
        **changes,
    )


def _refusal(memory, wanted: dict, number: int, categories) -> ValidationError | None:
    """Return why the memory cannot take the `wanted` values, by the rules read off the row.

    The category is checked only when the revert changes it: a memory kept in a category
    outside the pack (OPS_RULES under another pack) can still have its text reverted.
    """
    if wanted["category"] != memory.category and wanted["category"] not in categories:
        return ValidationError(
            f"Version {number} files this memory under {wanted['category']}, which is no longer "
            f"a category of {memory.project.name}'s pack; recategorise it by hand instead.",
            code="category_gone",
        )
    if memory.superseded_by_id and wanted["status"] != Memory.Status.ARCHIVED:
        return ValidationError(
            f"This memory was superseded by #{memory.superseded_by_id}; a revert cannot "
            "make it active again beside its successor. Undo the merge instead.",
            code="superseded",
        )
    if all(getattr(memory, name) == value for name, value in wanted.items()):
        return ValidationError(f"This memory already matches version {number}.", code="unchanged")
    return None


def memory_revert_refusals(memory, versions) -> dict[int, str]:
    """Return, by version id, why a revert of `memory` to that version would be refused.

    Only the rules the rows themselves show are checked, in a constant number of queries,
    so a history page can leave out a revert that would surely be refused; a duplicate of
    another memory is found by `memory_revert` itself.
    """
    categories = category_names(memory.project)
    refusals = {}
    for version in versions:
        wanted = {name: getattr(version, name) for name in EDITABLE_FIELDS}
        refusal = _refusal(memory, wanted, version.number, categories)
        if refusal is not None:
            refusals[version.history_id] = refusal.messages[0]
    return refusals


@transaction.atomic
def criteria_revert(*, version, actor, reason: str = "", expected_revision: int | None = None):
    """Put an earlier version's criteria (a historical category row) in force again.

    The criteria that version had in force (its override, else its pack default) are
    saved as people's criteria; if they equal today's pack default the override is simply
    cleared. Refused with the reason, nothing written: a category no longer in the pack,
    criteria that no longer pass the pack's rules, or criteria already in force. If
    `expected_revision` is given and someone saved the criteria since, StaleCriteria is
    raised.
    """
    number = getattr(version, "number", None) or version.history_id
    category = (
        Category.objects.select_for_update(of=("self",))
        .select_related("project")
        .filter(project_id=version.project_id, name=version.name)
        .first()
    )
    if category is None:
        raise ValidationError(
            f"{version.name} is no longer a category of this project's pack; "
            "its criteria cannot be put back in force.",
            code="category_gone",
        )
    wanted = effective_criteria_of(version)
    if expected_revision is not None and category.revision != expected_revision:
        raise StaleCriteria(category, wanted)
    if wanted == category.effective_criteria:
        raise ValidationError(_criteria_in_force(number), code="unchanged")
    try:
        return criteria_override_save(
            category=category,
            criteria=wanted,
            actor=actor,
            reason=revert_reason(number, reason),
            action=CRITERIA_REVERTED,
        )
    except ValidationError as error:
        problems = "; ".join(error.messages)
        raise ValidationError(
            f"The criteria of version {number} no longer pass the pack's rules: {problems}",
            code="invalid",
        ) from error


def _criteria_in_force(number: int) -> str:
    return f"The criteria of version {number} are the ones in force already."


def criteria_revert_refusals(versions) -> dict[int, str]:
    """Return, by version id, why a revert to that category version would be refused.

    `versions` are the category's versions oldest first, as `criteria_versions` numbers
    them; the newest holds the criteria in force. A version whose criteria are those is
    refused; the pack's rules are checked by `criteria_revert` itself.
    """
    if not versions:
        return {}
    in_force = effective_criteria_of(versions[-1])
    return {
        version.history_id: _criteria_in_force(version.number)
        for version in versions
        if effective_criteria_of(version) == in_force
    }
