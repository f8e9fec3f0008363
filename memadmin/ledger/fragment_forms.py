"""The fragmentation page's form: how the fragments are joined, and the header over them."""

from django import forms

from memadmin.number_fields import WholeNumberField
from memadmin.taxonomy.selectors import category_names

from .fragment_services import HEADER_IMPORTANCE

SPLIT_MODES = [
    ("auto", "automatically (headings, else list items, else paragraphs)"),
    ("headings", "at headings"),
    ("items", "at list items"),
    ("paragraphs", "at blank lines (paragraphs)"),
]


class SplitModeForm(forms.Form):
    """How the fragments are proposed; a mode that is not one is "auto"."""

    by = forms.ChoiceField(
        label="Propose fragments",
        choices=SPLIT_MODES,
        widget=forms.Select(attrs={"id": "split-by"}),
    )

    @classmethod
    def mode_of(cls, data) -> str:
        """Return the mode `data` asks for, "auto" if none or an unknown one."""
        form = cls(data)
        return form.cleaned_data["by"] if form.is_valid() else "auto"


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
    reason = forms.CharField(label="Why (for the history)", required=False, max_length=500)

    def __init__(self, *args, project, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["header_category"].choices = [(name, name) for name in category_names(project)]
