"""Forms of the criteria area. The rules live in the services; forms give each field a box.

A criteria form edits every field, or only one (`only=`) for editing in place. List fields
are formsets (`criteria_items`): one box per item plus empty boxes to add items; an emptied
box removes its item.
"""

from dataclasses import dataclass, field

from django import forms
from django.core.exceptions import ValidationError

from memadmin.audit.reason_field import reason_field
from memadmin.core.numbers import INTEGER_MAX
from memadmin.projects.models import Project
from memadmin.projects.widgets import ProjectSelect
from memadmin.web.number_fields import RowChoiceField, WholeNumberField

from .criteria_fields import FIELDS, HELP, LABELS, LIMITS, LIST_FIELDS, MAX_ITEMS, field_value
from .criteria_items import ItemFormSet, PairFormSet, TextItemFormSet, criteria_text_field

FACTS_TEXT_MAX = 200_000


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
    formset: ItemFormSet | None = None  # the boxes of a list field, with its management form

    @property
    def limit_text(self) -> str:
        """Return the field's limits as a sentence, shown before anything is refused."""
        if self.kind in ("list", "pairs"):
            return f"At most {MAX_ITEMS} items of {self.limit} characters each."
        return f"At most {self.limit} characters."


class RevisionForm(forms.Form):
    """The revision of a category's criteria the page showed: a change over another is refused.

    Revisions start at 1; a post without one, or with one that is not a revision, is of
    revision 0, no category's, so it is refused as a stale one is.
    """

    revision = WholeNumberField(
        required=False, widget=forms.HiddenInput, min_value=1, max_value=INTEGER_MAX
    )

    def seen(self) -> int:
        """Return the revision posted, or 0 when it is missing or is not a revision."""
        return (self.cleaned_data["revision"] or 0) if self.is_valid() else 0


class CriteriaForm(RevisionForm):
    reason = reason_field()

    def __init__(self, data=None, *, criteria: dict, revision: int, only: str | None = None):
        if only is not None and only not in FIELDS:
            raise ValueError(f"unknown criteria field {only!r}")
        super().__init__(data, initial={"revision": revision})
        self.base = criteria
        self.names = (only,) if only else FIELDS
        self.group_errors: dict[str, list[str]] = {name: [] for name in self.names}
        self.formsets: dict[str, ItemFormSet] = {}
        if only:
            del self.fields["reason"]
        for name in self.names:
            self._add_field(name)

    def _add_field(self, name: str) -> None:
        value = field_value(self.base, name)
        if name == "test_question":
            self.fields[name] = criteria_text_field(name, required=True, rows=None)
            self.initial[name] = value
        elif name in ("definition", "hard_stop"):
            required = name == "definition"
            self.fields[name] = criteria_text_field(
                name, required=required, rows=6 if required else 2
            )
            self.initial[name] = value
        else:
            formset = TextItemFormSet if name in LIST_FIELDS else PairFormSet
            self.formsets[name] = formset(
                self.data if self.is_bound else None, name=name, items=value
            )

    def is_valid(self) -> bool:
        """Return whether every field and every list field's boxes are valid."""
        valid = super().is_valid()  # cleans the formsets too: see clean()
        return valid and all(formset.is_valid() for formset in self.formsets.values())

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
                group.kind, group.formset = "list", self.formsets[name]
                group.boxes = [item["text"] for item in group.formset]
            else:
                group.kind, group.formset = "pairs", self.formsets[name]
                group.boxes = [(item["example"], item["reason"]) for item in group.formset]
            groups.append(group)
        return groups

    def clean(self):
        cleaned = super().clean()
        values = {}
        for name in self.names:
            formset = self.formsets.get(name)
            if formset is None:
                values[name] = cleaned.get(name, "")
                continue
            if not formset.is_valid():
                # The boxes carry their own errors; what is about the whole list is said above.
                self.group_errors[name] += formset.non_form_errors()
                continue
            values[name] = formset.items()
            if len(values[name]) > MAX_ITEMS:
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
        widget=ProjectSelect,
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
