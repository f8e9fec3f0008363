"""What the criteria editor shows: each field in force, its difference from the pack default,
a moved default beside the override, and the prompt surface. Reads only.
"""

from dataclasses import dataclass

from memadmin.core.prompts import HISTORIAN
from memadmin.core.worddiff import DiffOp, word_diff

from .criteria_fields import (
    FIELDS,
    HELP,
    LABELS,
    LIST_FIELDS,
    changed_fields,
    field_text,
    field_value,
)
from .forms import CriteriaForm, FieldGroup, RevisionForm
from .models import Category
from .selectors import prompt_texts, surface_history, surface_state

HISTORY_SHOWN = 5


@dataclass
class FieldView:
    """One criteria field on the editor page."""

    name: str
    label: str
    help: str
    kind: str  # "text", "list" or "pairs"
    value: object  # the effective value: a string, a list of strings, or a list of pairs
    differs: bool  # the override differs from the pack default in this field
    diff: list[DiffOp]  # pack default -> override, when it differs
    group: FieldGroup | None = None  # set while the field is being edited


@dataclass
class MovedField:
    """A field whose pack default moved under an override: the three texts side by side."""

    label: str
    old_default: str
    new_default: str
    override: str


def _kind(name: str) -> str:
    if name == "negative_examples":
        return "pairs"
    return "list" if name in LIST_FIELDS else "text"


def field_views(category: Category, *, form: CriteriaForm | None = None) -> list[FieldView]:
    """Return every field of the category's criteria; those the form edits carry its boxes."""
    effective, default = category.effective_criteria, category.default_criteria
    groups = {group.name: group for group in form.groups()} if form is not None else {}
    views = []
    for name in FIELDS:
        differs = category.is_overridden and field_value(effective, name) != field_value(
            default, name
        )
        views.append(
            FieldView(
                name=name,
                label=LABELS[name],
                help=HELP[name],
                kind=_kind(name),
                value=field_value(effective, name),
                differs=differs,
                diff=word_diff(field_text(default, name), field_text(effective, name))
                if differs
                else [],
                group=groups.get(name),
            )
        )
    return views


def moved_fields(category: Category) -> list[MovedField]:
    """Return the fields in which the pack default moved under the category's override."""
    if not (category.default_moved and category.previous_default and category.is_overridden):
        return []
    old, new, override = (
        category.previous_default,
        category.default_criteria,
        category.override_criteria,
    )
    return [
        MovedField(
            LABELS[name], field_text(old, name), field_text(new, name), field_text(override, name)
        )
        for name in changed_fields(old, new)
    ]


def conflict_fields(theirs: dict, yours: dict) -> list[MovedField]:
    """Return the fields where two versions differ, as (their text, your text) pairs."""
    return [
        MovedField(LABELS[name], field_text(theirs, name), "", field_text(yours, name))
        for name in changed_fields(theirs, yours)
    ]


def editor_context(
    category: Category,
    *,
    form: CriteriaForm | None = None,
    conflict: list[MovedField] | None = None,
    saved: str = "",
) -> dict:
    """Return the context of the editor section of a category's page."""
    project = category.project
    return {
        "category": category,
        "project": project,
        "fields": field_views(category, form=form),
        "form": form,
        "moved": moved_fields(category),
        "conflict": conflict,
        "saved": saved,
        # What the clear and keep forms carry (no ids: the page has two of them).
        "revision_form": RevisionForm(initial={"revision": category.revision}, auto_id=False),
        "surface": surface_state(project),
        "surface_records": list(surface_history(project)[:HISTORY_SHOWN]),
        "historian_text": prompt_texts(project).get(HISTORIAN, ""),
    }
