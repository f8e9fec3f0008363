"""Forms of the composites pages. They parse what people type; the services hold the rules.

Positions in forms count from 1, as people count steps; the services count from 0.
"""

import re

from django import forms
from django.core.exceptions import ValidationError

from memadmin.audit.reason_field import reason_field
from memadmin.core.numbers import parse_id
from memadmin.memories.picker import MEMORY_HINT, SELECT_LIMIT, PickerInput
from memadmin.projects.models import Project
from memadmin.projects.widgets import ProjectSelect
from memadmin.web.number_fields import RowChoiceField, WholeNumberField
from memadmin.web.stored_choices import OUTSIDE_VALUES, keep_stored_choice

from .models import Composite
from .reference_services import NOTE_MAX_CHARS
from .selectors import SIZE_LABELS

_ID = re.compile(r"#?([0-9]+)")  # not \d, which takes every script's digits


def parse_ids(text: str) -> list[int]:
    """Return the memory ids written as "12, #13 14" in order, each once."""
    leftover = _ID.sub("", text).replace(",", " ").strip()
    if leftover:
        raise ValidationError(
            f"Write memory ids as numbers separated by commas or spaces, not {leftover!r}."
        )
    found = _ID.findall(text)
    ids = [parse_id(number) for number in found]
    if None in ids:
        wrong = next(number for number, pk in zip(found, ids, strict=True) if pk is None)
        raise ValidationError(f"#{wrong[:30]} is not a memory id.")
    return list(dict.fromkeys(ids))


class CompositeFilterForm(forms.Form):
    project = RowChoiceField(
        queryset=Project.objects.order_by("name"),
        required=False,
        empty_label="All projects",
        widget=ProjectSelect,
    )
    type = forms.ChoiceField(choices=[("", "Any type"), *Composite.Type.choices], required=False)
    head_category = forms.ChoiceField(required=False, label="Head category")
    size = forms.ChoiceField(
        choices=[("", "Any size"), *SIZE_LABELS.items()], required=False, label="Size"
    )

    def __init__(self, *args, head_categories: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["head_category"].choices = [("", "Any category")] + [
            (name, name) for name in head_categories
        ]


class IdsField(forms.CharField):
    """A list of memory ids typed by a person, or picked by a word of their text."""

    def __init__(self, **kwargs):
        super().__init__(
            widget=PickerInput("memories:pick", hint=MEMORY_HINT, mode="append"), **kwargs
        )

    def to_python(self, value):
        text = super().to_python(value)
        return parse_ids(text) if text else []


class MembersPickedForm(forms.Form):
    """A form whose memory pickers search one project's memories."""

    def __init__(self, *args, project: Project | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if project is not None:
            for field in self.fields.values():
                if isinstance(field.widget, PickerInput):
                    field.widget.project = project.pk


class CompositeCreateForm(MembersPickedForm):
    project = forms.ModelChoiceField(
        queryset=Project.objects.order_by("name"), empty_label=None, widget=ProjectSelect
    )
    head = IdsField(label="Head", help_text="The id of the memory the composite is about, e.g. 12.")
    type = forms.ChoiceField(choices=Composite.Type.choices, initial=Composite.Type.SEQUENCE)
    title = forms.CharField(required=False, max_length=200)
    members = IdsField(
        required=False,
        label="Members",
        help_text="Memory ids in order, e.g. 12, 14, 15, or type a word of a memory's text to "
        "find it. You can add more later.",
    )
    reason = reason_field()

    def clean_head(self) -> int:
        ids = self.cleaned_data["head"]
        if len(ids) != 1:
            raise ValidationError("Name exactly one memory as the head.")
        return ids[0]


class VersionedForm(forms.Form):
    """A form that changes a composite and carries the version of it the page showed.

    `fingerprint` is `versions.composite_fingerprint` as the page rendered it; the service
    refuses the change if the composite moved since, or if the form sent none.
    """

    fingerprint = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)


class MemberAddForm(MembersPickedForm, VersionedForm):
    members = IdsField(
        label="Memory ids", help_text="One or more, e.g. 12, 14, or a word of the text to find one."
    )
    position = WholeNumberField(
        required=False, min_value=1, label="At step", help_text="Empty: at the end."
    )


class MemberRemoveForm(VersionedForm):
    pass


class MemberMoveForm(VersionedForm):
    position = WholeNumberField(min_value=1, label="To step")


class TypeForm(VersionedForm):
    """The composite's type; its stored type is offered even if no longer one of the types."""

    type = forms.ChoiceField(choices=Composite.Type.choices)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        keep_stored_choice(self.fields["type"], self.initial.get("type"), note=OUTSIDE_VALUES)


class CursorForm(VersionedForm):
    action = forms.ChoiceField(choices=[("advance", "advance"), ("back", "back"), ("set", "set")])
    position = WholeNumberField(required=False, label="Step")

    @classmethod
    def for_composite(cls, composite: Composite, rows: list) -> "CursorForm":
        """Return the "put the cursor on step" form of a sequence showing `rows`.

        Its step is a select of the steps up to SELECT_LIMIT of them ("2 · #14"), else a
        number box from 1 to the last step; either is `cursor-step`, on the cursor's step.
        """
        form = cls(initial={"position": composite.cursor + 1})
        if 0 < len(rows) <= SELECT_LIMIT:
            steps = [(n, f"{n} · #{row.member.display_id}") for n, row in enumerate(rows, 1)]
            widget = forms.Select(attrs={"id": "cursor-step"}, choices=steps)
        else:
            widget = forms.NumberInput(attrs={"id": "cursor-step", "min": 1, "max": len(rows)})
        form.fields["position"].widget = widget
        return form


class FreezeForm(forms.Form):
    note = forms.CharField(
        required=False,
        max_length=NOTE_MAX_CHARS,
        error_messages={"max_length": f"A note holds at most {NOTE_MAX_CHARS} characters."},
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="What the snapshot is for (kept with it).",
    )


class DeleteForm(forms.Form):
    reason = reason_field(
        label="Why (optional)",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Kept as the reason on the composite's history.",
    )
    # composite_fingerprint of what the confirmation showed: the deletion is refused if it moved.
    # No length to check: any other text is another version, refused as such by the service.
    fingerprint = forms.CharField(required=False, widget=forms.HiddenInput)


def add_service_error(form: forms.Form, error: ValidationError) -> None:
    """Show a service's refusal on the form: on the field it names, if the form has it."""
    if not hasattr(error, "error_dict"):
        form.add_error(None, error)
        return
    for name, errors in error.error_dict.items():
        form.add_error(name if name in form.fields else None, errors)


class TitleForm(VersionedForm):
    title = forms.CharField(required=False, max_length=200)
