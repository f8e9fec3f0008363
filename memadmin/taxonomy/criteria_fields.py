"""The fields of a category's criteria as people see them: labels, limits and plain text.

Criteria are stored as the JSON of `memadmin.core.packs.criteria_to_dict`; pages, diffs,
conflicts and the audit trail show each field as one plain text made here.
"""

from memadmin.core.packs import DEFINITION_MAX, EXAMPLE_MAX, LIST_MAX, QUESTION_MAX

FIELDS = (
    "test_question",
    "definition",
    "positive_examples",
    "negative_examples",
    "exclusions",
    "hard_stop",
)
LIST_FIELDS = ("positive_examples", "exclusions")
LABELS = {
    "test_question": "Test question",
    "definition": "Definition",
    "positive_examples": "Belongs here",
    "negative_examples": "Does not belong here",
    "exclusions": "Never record",
    "hard_stop": "Hard stop",
}
HELP = {
    "test_question": "One line: the question that decides whether a fact belongs here.",
    "definition": "What the category holds. Required.",
    "positive_examples": "Facts that belong here, one per box; empty boxes are dropped.",
    "negative_examples": "Facts that do not belong here, each with the reason why.",
    "exclusions": "What is never recorded under this category, one per box.",
    "hard_stop": "Optional: one rule the historian must never break.",
}
LIMITS = {
    "test_question": QUESTION_MAX,
    "definition": DEFINITION_MAX,
    "positive_examples": EXAMPLE_MAX,
    "negative_examples": EXAMPLE_MAX,
    "exclusions": EXAMPLE_MAX,
    "hard_stop": EXAMPLE_MAX,
}
MAX_ITEMS = LIST_MAX


def field_value(criteria: dict, field: str):
    """Return the field's stored value, with the optional hard stop as ""."""
    if field not in FIELDS:
        raise KeyError(field)
    empty = "" if field in ("test_question", "definition", "hard_stop") else []
    return criteria.get(field, empty)


def field_text(criteria: dict, field: str) -> str:
    """Return the field as plain text: lists one item per line, negatives with their reason."""
    value = field_value(criteria, field)
    if field == "negative_examples":
        return "\n".join(f"{item['example']} ({item['reason']})" for item in value)
    if field in LIST_FIELDS:
        return "\n".join(value)
    return value


def changed_fields(old: dict, new: dict) -> list[str]:
    """Return the names of the fields whose values differ, in field order."""
    return [f for f in FIELDS if field_value(old, f) != field_value(new, f)]


def field_changes(old: dict, new: dict) -> dict[str, list[str]]:
    """Return {field: [old text, new text]} for every field that differs."""
    return {f: [field_text(old, f), field_text(new, f)] for f in changed_fields(old, new)}


def form_field_of(error_field: str) -> str:
    """Return the top-level criteria field an error path names ("negative_examples[2].reason")."""
    head = error_field.split(".", 1)[0].split("[", 1)[0]
    return head if head in FIELDS else ""
