"""Forms of the history area: the audit log's filters, compare and revert. Rules live in services."""

from collections.abc import Sequence

from django import forms

from memadmin.audit.reason_field import reason_field
from memadmin.memories.revision_fields import StoreRevisionsField
from memadmin.projects.models import Project
from memadmin.projects.widgets import ProjectSelect
from memadmin.web.number_fields import RowChoiceField, WholeNumberField

from . import selectors


class DateInput(forms.DateInput):
    input_type = "date"


class MemoryIdField(WholeNumberField):
    """A memory's id as pages show it: "12" or "#12"."""

    widget = forms.TextInput

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault(
            "error_messages", {"invalid": "Name a memory by its id, a number like 12 or #12."}
        )
        super().__init__(**kwargs)
        self.widget.attrs.update({"placeholder": "#id", "size": 8})

    def to_python(self, value):
        return super().to_python(
            value.strip().removeprefix("#") if isinstance(value, str) else value
        )


class EventFilterForm(forms.Form):
    """The audit log's filters; every field is optional.

    Actor, category and kind of change are offered as the values the log holds, yet any
    value is accepted: a link to "role changes" is valid before the first one happens.
    """

    actor = forms.CharField(required=False, max_length=150, widget=forms.Select)
    project = RowChoiceField(
        queryset=Project.objects.order_by("name"),
        required=False,
        empty_label="All projects",
        widget=ProjectSelect,
    )
    category = forms.CharField(required=False, max_length=40, widget=forms.Select)
    action = forms.CharField(
        required=False, max_length=40, widget=forms.Select, label="Kind of change"
    )
    since = forms.DateField(required=False, widget=DateInput, label="From")
    until = forms.DateField(required=False, widget=DateInput, label="To")
    memory = MemoryIdField(required=False, label="Memory")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        held = selectors.event_choices()
        self.fields["actor"].widget.choices = _choices("Anyone", held["actor"])
        # Categories by their names, as everywhere (CONFIG_VALUES); kinds of change in words.
        self.fields["category"].widget.choices = _choices("Any category", held["category"])
        self.fields["action"].widget.choices = _choices(
            "Any change", held["action"], label=lambda action: action.replace("_", " ")
        )

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError("The range starts after it ends.")
        return data

    def filters(self) -> selectors.EventFilters:
        """Return the filters the form holds (none if it is not valid)."""
        if not self.is_valid():
            return selectors.EventFilters()
        return selectors.EventFilters(**self.cleaned_data)


def _choices(anything: str, values: list[str], *, label=str) -> list[tuple[str, str]]:
    return [("", anything), *((value, label(value)) for value in values)]


class CompareForm(forms.Form):
    """Two versions to compare: `a` the older side, `b` the newer.

    On a history page each version's row holds its two radio buttons (`pick`), which join
    the empty compare form at the table's top through their form= attribute.
    """

    use_required_attribute = False  # a version is always chosen on both sides
    a = WholeNumberField(min_value=1, widget=forms.RadioSelect(attrs={"form": "compare-form"}))
    b = WholeNumberField(min_value=1, widget=forms.RadioSelect(attrs={"form": "compare-form"}))

    def __init__(self, *args, versions: Sequence = (), **kwargs):
        """`versions`, newest first, are offered on both sides; the newest two are chosen."""
        ids = [version.history_id for version in versions]
        kwargs.setdefault(
            "initial", {"a": ids[1] if len(ids) > 1 else None, "b": ids[0] if ids else None}
        )
        super().__init__(*args, **kwargs)
        for name, label in (("a", "from"), ("b", "to")):
            self.fields[name].widget.choices = [(pk, label) for pk in ids]

    def pick(self, versions: Sequence) -> None:
        """Give each of `versions` (as offered) its radio buttons: `pick_a` and `pick_b`."""
        for version, a, b in zip(versions, self["a"], self["b"], strict=True):
            version.pick_a, version.pick_b = a, b


class RevertForm(forms.Form):
    """The version to go back to, why, and the version of the object the page showed.

    `expected_version` is the memory's `updated_at` or the category's `revision` when the
    page was made: a revert over a newer save, or one that does not say, is refused.
    A history page holds one per version: `for_version` names its boxes apart.
    """

    version = WholeNumberField(min_value=1, widget=forms.HiddenInput)
    expected_version = WholeNumberField(required=False, widget=forms.HiddenInput)
    # A memory's store revision as the page read it (a lifecycle store; empty otherwise).
    store_revisions = StoreRevisionsField()
    reason = reason_field(label="Why", help_text="")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)

    @classmethod
    def for_version(
        cls,
        history_id: int,
        *,
        expected: int,
        auto_id: str = "",
        data=None,
        store_revisions: str = "",
    ) -> "RevertForm":
        """Return the form reverting to that version over the object's version `expected`
        (and the store revisions read, if any); ids are "reason-<id>" unless told."""
        return cls(
            data,
            initial={
                "version": history_id,
                "expected_version": expected,
                "store_revisions": store_revisions,
            },
            auto_id=auto_id or f"%s-{history_id}",
        )
