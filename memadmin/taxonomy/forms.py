"""Forms of the criteria area. The rules live in the services; forms give each field a box.

A criteria form edits every field, or only one (`only=`) for editing in place. List fields
get one box per item plus empty boxes to add items; an emptied box removes its item.
"""

import re
from dataclasses import dataclass, field

from django import forms
from django.core.exceptions import ValidationError

from memadmin.core.numbers import INTEGER_MAX
from memadmin.number_fields import RowChoiceField, WholeNumberField
from memadmin.projects.models import Project

from .criteria_fields import FIELDS, HELP, LABELS, LIMITS, LIST_FIELDS, MAX_ITEMS, field_value

EXTRA_ROWS = 2
ROW_CAP = MAX_ITEMS + 10  # boxes read from a post; more items than MAX_ITEMS are refused anyway
FACTS_TEXT_MAX = 200_000


class CriteriaTextField(forms.CharField):
    """A text box whose line breaks are stored as "\n", whatever the browser sent."""

    def to_python(self, value):
        text = super().to_python(value)
        return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass
class FieldGroup:
    """One criteria field as the form shows it: its boxes and its errors."""

    name: str
    label: str
    help: str
    kind: str  # "line", "text", "list" or "pairs"
    boxes: list = field(default_factory=list)  # bound fields; for pairs, (example, reason) rows
    errors: list[str] = field(default_factory=list)
    limit: int = 0  # characters per box

    @property
    def limit_text(self) -> str:
        """Return the field's limits as a sentence, shown before anything is refused."""
        if self.kind in ("list", "pairs"):
            return f"At most {MAX_ITEMS} items of {self.limit} characters each."
        return f"At most {self.limit} characters."


def _rows_posted(data, prefix: str) -> int:
    pattern = re.compile(rf"^{re.escape(prefix)}-([0-9]{{1,9}})(?:-example|-reason)?$")
    indices = [int(m[1]) for key in data if (m := pattern.match(key)) and int(m[1]) < ROW_CAP]
    return max(indices) + 1 if indices else 0


class CriteriaForm(forms.Form):
    revision = WholeNumberField(
        required=False, widget=forms.HiddenInput, min_value=1, max_value=INTEGER_MAX
    )
    reason = forms.CharField(required=False, max_length=500, help_text="Why (kept in the history).")

    def __init__(self, data=None, *, criteria: dict, revision: int, only: str | None = None):
        if only is not None and only not in FIELDS:
            raise ValueError(f"unknown criteria field {only!r}")
        super().__init__(data, initial={"revision": revision})
        self.base = criteria
        self.names = (only,) if only else FIELDS
        self.group_errors: dict[str, list[str]] = {name: [] for name in self.names}
        if only:
            del self.fields["reason"]
        for name in self.names:
            self._add_fields(name)

    def _text_field(self, name: str, *, required: bool, rows: int | None) -> CriteriaTextField:
        limit = LIMITS[name]
        widget = forms.Textarea(attrs={"rows": rows}) if rows else forms.TextInput()
        messages = {
            "max_length": f"{LABELS[name]}: at most {limit} characters (this has %(show_value)d)."
        }
        if required:
            messages["required"] = f"{LABELS[name]} is required; it cannot be empty."
        return CriteriaTextField(
            required=required, max_length=limit, widget=widget, error_messages=messages
        )

    def _add_fields(self, name: str) -> None:
        value = field_value(self.base, name)
        if name == "test_question":
            self.fields[name] = self._text_field(name, required=True, rows=None)
            self.initial[name] = value
        elif name in ("definition", "hard_stop"):
            required = name == "definition"
            self.fields[name] = self._text_field(name, required=required, rows=6 if required else 2)
            self.initial[name] = value
        elif name in LIST_FIELDS:
            count = self._row_count(name, len(value))
            for i in range(count):
                key = f"{name}-{i}"
                self.fields[key] = self._text_field(name, required=False, rows=2)
                self.initial[key] = value[i] if i < len(value) else ""
        else:
            count = self._row_count(name, len(value))
            for i in range(count):
                item = value[i] if i < len(value) else {"example": "", "reason": ""}
                for part in ("example", "reason"):
                    key = f"{name}-{i}-{part}"
                    self.fields[key] = self._text_field(name, required=False, rows=2)
                    self.initial[key] = item[part]

    def _row_count(self, name: str, held: int) -> int:
        if self.is_bound:
            return _rows_posted(self.data, name)
        return min(held + EXTRA_ROWS, max(MAX_ITEMS, held))

    def groups(self) -> list[FieldGroup]:
        """Return the form's criteria fields, each with its boxes and errors, in field order."""
        groups = []
        for name in self.names:
            group = FieldGroup(
                name,
                LABELS[name],
                HELP[name],
                "text",
                errors=self.group_errors[name],
                limit=LIMITS[name],
            )
            if name == "test_question":
                group.kind, group.boxes = "line", [self[name]]
            elif name in ("definition", "hard_stop"):
                group.boxes = [self[name]]
            elif name in LIST_FIELDS:
                group.kind = "list"
                group.boxes = [self[key] for key in self.fields if key.startswith(f"{name}-")]
            else:
                group.kind = "pairs"
                keys = [
                    k for k in self.fields if k.startswith(f"{name}-") and k.endswith("-example")
                ]
                group.boxes = [
                    (self[k], self[k.removesuffix("-example") + "-reason"]) for k in keys
                ]
            groups.append(group)
        return groups

    def _list(self, name: str) -> list[str]:
        items = []
        i = 0
        while f"{name}-{i}" in self.fields:
            text = self.cleaned_data.get(f"{name}-{i}", "")
            if text:
                items.append(text)
            i += 1
        return items

    def _pairs(self, name: str) -> list[dict]:
        items = []
        i = 0
        while f"{name}-{i}-example" in self.fields:
            example = self.cleaned_data.get(f"{name}-{i}-example", "")
            reason = self.cleaned_data.get(f"{name}-{i}-reason", "")
            if example and not reason:
                self.add_error(f"{name}-{i}-reason", "Say why this does not belong here.")
            elif reason and not example:
                self.add_error(f"{name}-{i}-example", "Give the example this reason is about.")
            elif example:
                items.append({"example": example, "reason": reason})
            i += 1
        return items

    def clean(self):
        cleaned = super().clean()
        values = {}
        for name in self.names:
            if name in LIST_FIELDS:
                values[name] = self._list(name)
            elif name == "negative_examples":
                values[name] = self._pairs(name)
            else:
                values[name] = cleaned.get(name, "")
            if isinstance(values[name], list) and len(values[name]) > MAX_ITEMS:
                self.group_errors[name].append(
                    f"{LABELS[name]}: at most {MAX_ITEMS} items (this has {len(values[name])})."
                )
        if any(self.group_errors.values()):
            raise ValidationError("Some fields need attention.")
        self.values = values
        return cleaned

    def criteria(self, base: dict | None = None) -> dict:
        """Return the criteria with this form's fields replaced (call after is_valid)."""
        merged = dict(self.base if base is None else base)
        merged.update(self.values)
        if not merged.get("hard_stop"):
            merged.pop("hard_stop", None)
        return merged

    def add_criteria_error(self, error: ValidationError) -> None:
        """Show a service's error beside the criteria field it names."""
        if not hasattr(error, "error_dict"):
            self.add_error(None, error)
            return
        for name, errors in error.error_dict.items():
            messages = [m for e in errors for m in e.messages]
            if name in self.fields:
                self.add_error(name, messages)
            elif name in self.group_errors:
                self.group_errors[name] += messages
            else:
                self.add_error(None, messages)


class ProjectPickForm(forms.Form):
    project = RowChoiceField(
        queryset=Project.objects.filter(pack__isnull=False).order_by("name"),
        empty_label=None,
        label="Project",
    )


class FactsCheckForm(forms.Form):
    text = forms.CharField(
        label="Historian output",
        max_length=FACTS_TEXT_MAX,
        widget=forms.Textarea(attrs={"rows": 14}),
        strip=False,
        error_messages={
            "required": "Paste the historian's output to check it.",
            "max_length": f"At most {FACTS_TEXT_MAX} characters (this has %(show_value)d).",
        },
    )
