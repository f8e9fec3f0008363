"""Forms of bulk curation and merging. They parse what people send; the services hold the rules."""

from django import forms
from django.db.models import Count

from memadmin.audit.reason_field import reason_field
from memadmin.core.numbers import ids_in, parse_id
from memadmin.taxonomy.models import Category
from memadmin.web.hidden_fields import LocalPathField
from memadmin.web.number_fields import WholeNumberField

from .bulk_offers import ACTIONS, MERGE
from .picker import COMPOSITE_HINT, PickerInput, typed_id
from .revision_fields import StoreRevisionsField

# How the bulk bar's select names each action: those needing more input end in "…".
ACTION_LABELS = {
    "archive": "Archive",
    "restore": "Restore",
    "move": "Move to category…",
    "add": "Add to composite…",
    MERGE: "Merge into one…",
}
ACTION_CHOICES = [(action, ACTION_LABELS[action]) for action in [*ACTIONS, MERGE]]


class SelectedIdsField(forms.Field):
    """The ids of the ticked rows; the services check what each memory allows."""

    widget = forms.MultipleHiddenInput
    default_error_messages = {
        "required": "Select at least one memory.",
        "invalid": "A selected row is not a memory id.",
    }

    def to_python(self, value) -> list[int]:
        values = [value] if isinstance(value, str) else list(value or [])
        ids = [parse_id(str(item)) for item in values]
        if None in ids:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return list(dict.fromkeys(ids))


class ShownIdsField(forms.Field):
    """The ids of the list page's rows, in one hidden input, comma-separated (`shown`).

    htmx sends it when it asks which actions the selection allows: while no row is ticked,
    these rows stand for the selection to come. What is not an id is left out: the answer
    only narrows a select, and the review checks every row again.
    """

    widget = forms.HiddenInput

    def prepare_value(self, value) -> str:
        if isinstance(value, (list, tuple)):
            return ",".join(str(pk) for pk in value)
        return value or ""

    def to_python(self, value) -> list[int]:
        return ids_in(str(value or "").split(","))


class CompositePickField(forms.CharField):
    """A composite named by its id ("12", "#12") or its exact title, typed or picked.

    It picks from ``composites``, the queryset its form is given (composites sit above the
    memories: the view that binds the form passes them); none when not given.
    """

    composites = None

    default_error_messages = {
        "missing": "No composite has the id or title {text!r}.",
        "ambiguous": "{count} composites are titled {text!r}: pick one by its id.",
    }

    def __init__(self, **kwargs):
        super().__init__(
            widget=PickerInput("composites:pick", hint=COMPOSITE_HINT), max_length=200, **kwargs
        )

    def clean(self, value):
        text = (super().clean(value) or "").strip()
        if not text:
            return None
        composites = self.composites
        if composites is None:
            raise forms.ValidationError(self.error_messages["missing"].format(text=text))
        number = typed_id(text)
        found = (
            list(composites.filter(pk=number)[:1])
            if number is not None and number < 2**63
            else list(composites.filter(title__iexact=text)[:2])
        )
        if not found:
            raise forms.ValidationError(self.error_messages["missing"].format(text=text))
        if len(found) > 1:
            count = composites.filter(title__iexact=text).count()
            raise forms.ValidationError(
                self.error_messages["ambiguous"].format(count=count, text=text)
            )
        return found[0]


class ShownRowsForm(forms.Form):
    """The rows the memory list shows, as its bulk bar sends them with htmx's question."""

    shown = ShownIdsField(required=False)


class BulkForm(ShownRowsForm):
    """The selection and the action, from the memory list or the confirmation page."""

    ids = SelectedIdsField(label="Memories")
    action = forms.ChoiceField(
        choices=ACTION_CHOICES,
        label="With the selected rows",
        widget=forms.Select(attrs={"id": "bulk-action"}),
    )
    category = forms.ChoiceField(
        required=False, label="Category", widget=forms.Select(attrs={"id": "bulk-category"})
    )
    composite = CompositePickField(required=False, label="Composite")
    reason = reason_field(
        label="Why (optional)",
        help_text="Kept as the reason on the history of every memory this changes.",
    )
    expected = WholeNumberField(required=False, widget=forms.HiddenInput, min_value=0)
    # The review's BulkPlan.fingerprint: the confirmation is refused if a row changed since.
    fingerprint = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)
    # The store revisions of the rows reviewed (a lifecycle store): a row the agent revised
    # since, even with no change memadmin shows, refuses the confirmation.
    store_revisions = StoreRevisionsField()
    next = LocalPathField()  # the list page, its filters kept

    def __init__(
        self,
        *args,
        project=None,
        categories: list[tuple[str, str]] | None = None,
        actions: list[str] | None = None,
        composites=None,
        **kwargs,
    ):
        """Offer `categories` for a move (the list's selection), else (None) every known one.

        The composite picker searches `project`'s composites when the list shows one project;
        an add picks from `composites` (a queryset of them). `actions` (from
        `actions_allowed`) narrows the actions the select offers.
        """
        super().__init__(*args, **kwargs)
        self.fields["composite"].composites = composites
        if actions is not None:
            self.fields["action"].choices = [
                choice for choice in ACTION_CHOICES if choice[0] in actions
            ]
        if categories is None:
            categories = category_choices()
        self.fields["category"].choices = [("", "—"), *categories]
        composite = self.fields["composite"].widget
        composite.attrs["id"] = "bulk-composite"
        composite.project = project.pk if project is not None else None

    def clean(self):
        """Ignore the category unless moving, and the composite unless adding.

        The list hides the field of an action it does not offer; what was typed there before
        must not refuse another action.
        """
        cleaned = super().clean()
        action = cleaned.get("action")
        for name, needed_by, empty in (("category", "move", ""), ("composite", "add", None)):
            if action != needed_by:
                self._errors.pop(name, None)
                cleaned[name] = empty
        return cleaned

    def only_reason_refused(self) -> bool:
        """Return True if the reason is the only thing refused (the review can be shown again)."""
        return set(self.errors) == {"reason"}


def category_choices(project=None, *, common: bool = False) -> list[tuple[str, str]]:
    """Return category names to move memories to, sorted.

    For a project: its writable categories. With `common`: the writable names every project
    with a pack defines, so a move from "All projects" offers only what each row can take.
    Otherwise: every category name of any project's pack.
    """
    categories = Category.objects.all()
    if project is not None:
        categories = categories.filter(project=project, legacy=False)
    elif common:
        projects = Category.objects.values("project").distinct().count()
        names = (
            categories.filter(legacy=False)
            .values("name")
            .annotate(projects=Count("project", distinct=True))
            .filter(projects=projects)
            .values_list("name", flat=True)
        )
        return [(name, name) for name in sorted(names)]
    names = sorted(set(categories.values_list("name", flat=True)))
    return [(name, name) for name in names]


class MergeForm(forms.Form):
    # The memories the page lists, as the bulk review named them.
    ids = SelectedIdsField(
        error_messages={
            "required": "Name the memories to merge: two or more.",
            "invalid": "A memory to merge is not a memory id: nothing was merged.",
        }
    )
    content = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        label="Merged text",
        help_text="Write the one memory that replaces them.",
    )
    importance = WholeNumberField(
        required=False,
        min_value=1,
        max_value=100,
        help_text="Empty: the highest of the sources'.",
    )
    reason = reason_field()
    # `memories_version` of the memories the page lists: a merge over a newer save of
    # one of them, or one that says none, is refused.
    sources_version = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)
    # The sources' store revisions as the page read them (a lifecycle store): a source the
    # agent revised since, even without a change memadmin shows, refuses the merge.
    store_revisions = StoreRevisionsField()

    def clean(self):
        """Show a refused `ids` above the form: it is the page's selection, not a box's."""
        cleaned = super().clean()
        if "ids" in self._errors:
            self.add_error(None, self._errors.pop("ids").as_data())
        return cleaned
