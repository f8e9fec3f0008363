"""The fragmentation page's forms: the split (its mode, its rows, one more start line), and the
header over the fragments.

The split's rows are a formset, one form per fragment after the first (`boundary-0-start`,
`boundary-0-merge`, ...), with its management form: a page of a text of n lines shows at most
n - 1 rows, so a post claiming more, leaving the management form out, or naming a row it did
not count is refused whole.
"""

import re

from django import forms

from memadmin.audit.reason_field import reason_field
from memadmin.taxonomy.selectors import category_names
from memadmin.web.number_fields import WholeNumberField

from .fragment_services import HEADER_IMPORTANCE

SPLIT_MODES = [
    ("auto", "automatically"),
    ("headings", "at headings"),
    ("items", "at list items"),
    ("paragraphs", "at blank lines (paragraphs)"),
]
BOUNDARY_PREFIX = "boundary"
_ROW_KEY = re.compile(rf"{BOUNDARY_PREFIX}-([0-9]+)-")


def start_line_field(lines: int, *, label: str, required: bool = False) -> WholeNumberField:
    """Return a box for the line a fragment starts on: 2 to `lines`, the text's line count."""
    if lines < 2:
        outside = "This text is one line: a split needs at least two lines to start on."
    else:
        outside = (
            f"Line %(show_value)s is outside the text: a fragment starts on line 2 to {lines}."
        )
    return WholeNumberField(
        label=label,
        required=required,
        min_value=2,
        max_value=lines,
        error_messages={
            "invalid": f"Write a line number in digits: a fragment starts on line 2 to {lines}.",
            "min_value": outside,
            "max_value": outside,
        },
    )


class ModeField(forms.ChoiceField):
    """A split mode; anything that is not one (or nothing) is "auto"."""

    def to_python(self, value):
        value = super().to_python(value)
        return value if self.valid_value(value) else "auto"


class SplitForm(forms.Form):
    """How the fragments are proposed, and a line to start one more fragment on."""

    by = ModeField(
        label="Propose fragments",
        choices=SPLIT_MODES,
        widget=forms.Select(attrs={"id": "split-by"}),
        # The choice stays short (a closed select shows no more than a phone's width).
        help_text="Automatically: at headings if the text has any, else at list items, else "
        "at blank lines.",
    )

    def __init__(self, *args, lines: int, **kwargs):
        # No colon: each label starts a sentence its control ends ("Propose fragments at ...").
        super().__init__(*args, label_suffix="", **kwargs)
        self.fields["split_at"] = start_line_field(lines, label="Start a new fragment on line")

    def mode(self) -> str:
        """Return the mode asked for, "auto" if none or an unknown one."""
        self.is_valid()
        return self.cleaned_data["by"]

    def asks_for_a_new_start(self) -> bool:
        """Return True when the split_at box holds anything."""
        return bool(str(self.data.get("split_at", "")).strip())


class PreviewStateForm(forms.Form):
    """What the page's preview was made from: its split mode and the version of the text.

    Rendered unbound only, from what the page shows (never from a post), and without ids: the
    page carries one of each. A mode that differs from the one asked for proposes again.
    """

    by_was = forms.CharField(required=False, widget=forms.HiddenInput)
    expected_updated_at = WholeNumberField(required=False, min_value=0, widget=forms.HiddenInput)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, auto_id=False, **kwargs)

    def mode_changed(self, by: str) -> bool:
        """Return True when the page showed another mode than `by` (False if it did not say)."""
        if "by_was" not in self.data:
            return False
        self.is_valid()
        return self.cleaned_data.get("by_was") != by

    def version(self) -> int | None:
        """Return the version (updated_at) of the text the preview split, None if not given."""
        self.is_valid()
        return self.cleaned_data.get("expected_updated_at")


class BoundaryForm(forms.Form):
    """One fragment after the first: the line it starts on, and whether it joins the one before.

    An emptied start merges the fragment too: with no line of its own, it is the one before's.
    """

    def __init__(self, *args, number: int | None, lines: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.number = number
        label = f"Fragment {number} starts on line" if number else "A fragment starts on line"
        self.fields["start"] = start_line_field(lines, label=label)
        self.fields["merge"] = forms.BooleanField(
            label=f"into fragment {number - 1}" if number else "into the fragment before",
            required=False,
        )


class BaseBoundaryFormSet(forms.BaseFormSet):
    """The split's rows, prefixed "boundary"; at most one per line after the text's first."""

    def __init__(self, data=None, *, lines: int, starts: list[int] = (), **kwargs):
        rows = max(lines - 1, 0)
        super().__init__(
            data,
            prefix=BOUNDARY_PREFIX,
            initial=None if data is not None else [{"start": line} for line in starts],
            form_kwargs={"lines": lines},
            error_messages={
                "missing_management_form": "The form did not say how many rows of the split "
                "it sent: nothing was read. Reload the page and try again.",
                "too_many_forms": f"The form sent more rows than the page shows: this text has "
                f"{lines} lines, so at most {rows} fragments start after the first. Reload the "
                "page and try again.",
            },
            **kwargs,
        )
        # The limits of this text, not the factory's: a page shows one row per line after the first.
        self.max_num = self.absolute_max = rows

    def get_form_kwargs(self, index):
        return {**self.form_kwargs, "number": None if index is None else index + 2}

    def sent(self) -> bool:
        """Return True when the request carries any of the split's rows or its management form."""
        return any(str(key).startswith(f"{BOUNDARY_PREFIX}-") for key in self.data)

    def clean(self):
        if not self.management_form.is_valid():
            return  # said already: a count is missing, so no row can be placed
        counted = self.total_form_count()
        unknown = {
            digits
            for key in self.data
            if (match := _ROW_KEY.match(str(key)))
            and (len(digits := match[1]) > 9 or int(digits) >= counted)
        }
        if unknown:
            raise forms.ValidationError(
                f"The form sent rows beyond the {counted} it counted: nothing was read. "
                "Reload the page and try again.",
                code="unknown_row",
            )

    def starts(self) -> tuple[list[int | None], set[int]]:
        """Return each row's start line (None if emptied) and the numbers of the fragments
        merged into the one before them (an emptied start merges its fragment)."""
        starts, merged = [], set()
        for form in self.forms:
            starts.append(form.cleaned_data.get("start"))
            if form.cleaned_data.get("merge") or starts[-1] is None:
                merged.add(form.number)
        return starts, merged


BoundaryFormSet = forms.formset_factory(
    BoundaryForm, formset=BaseBoundaryFormSet, extra=0, validate_max=True, can_delete=False
)


class FragmentForm(forms.Form):
    """The header and composite to create over the fragments."""

    type = forms.ChoiceField(
        label="Join the fragments as",
        choices=[
            ("sequence", "a sequence: ordered steps, e.g. an SOP"),
            ("theme", "a theme: a dossier of related facts"),
        ],
        widget=forms.RadioSelect,
        initial="sequence",
    )
    summary = forms.CharField(
        label="Header summary",
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="What the agent sees by default; it lists the details it can fetch.",
        error_messages={
            "required": "Write the header's summary: it is what the agent sees by default."
        },
    )
    title = forms.CharField(label="Composite title", required=False, max_length=200)
    header_category = forms.ChoiceField(label="Header category")
    header_importance = WholeNumberField(
        label="Header importance", min_value=1, max_value=100, initial=HEADER_IMPORTANCE
    )
    reason = reason_field(label="Why (for the history)", help_text="")

    def __init__(self, *args, project, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["header_category"].choices = [(name, name) for name in category_names(project)]
