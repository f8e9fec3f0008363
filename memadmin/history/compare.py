"""Put two versions side by side: a memory's text and fields, or a category's criteria."""

from dataclasses import dataclass

from memadmin.core.worddiff import Row, side_by_side
from memadmin.taxonomy.criteria_fields import FIELDS, LABELS, field_text

from .selectors import effective_criteria_of

MEMORY_FIELDS = (
    ("category", "Category"),
    ("importance", "Importance"),
    ("scope", "Scope"),
    ("shareable", "Shareable"),
    ("status", "Status"),
    ("superseded_by_id", "Superseded by"),
)


@dataclass(frozen=True)
class FieldPair:
    """One field's value in each version, and whether they differ."""

    label: str
    old: object
    new: object

    @property
    def changed(self) -> bool:
        """Return True if the two versions hold different values."""
        return self.old != self.new

    @property
    def old_text(self) -> str:
        """Return the older value as the page says it."""
        return _said(self.old)

    @property
    def new_text(self) -> str:
        """Return the newer value as the page says it."""
        return _said(self.new)


def _said(value: object) -> str:
    """Return a field's value in words: yes or no for a flag, a dash for none."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@dataclass(frozen=True)
class TextCompare:
    """A text field of both versions as side-by-side rows."""

    label: str
    rows: list[Row]

    @property
    def changed(self) -> bool:
        """Return True if any row differs."""
        return any(row.kind != "equal" for row in self.rows)


def memory_comparison(old, new) -> tuple[TextCompare, list[FieldPair]]:
    """Return the memory versions' texts side by side, and their other fields in pairs."""
    text = TextCompare("Text", side_by_side(old.content, new.content))
    fields = [
        FieldPair(label, getattr(old, name), getattr(new, name)) for name, label in MEMORY_FIELDS
    ]
    return text, fields


def criteria_comparison(old, new) -> list[TextCompare]:
    """Return each criteria field of the category versions (what was in force) side by side."""
    old_criteria, new_criteria = effective_criteria_of(old), effective_criteria_of(new)
    return [
        TextCompare(
            LABELS[field],
            side_by_side(field_text(old_criteria, field), field_text(new_criteria, field)),
        )
        for field in FIELDS
    ]
