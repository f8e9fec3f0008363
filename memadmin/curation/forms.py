"""Forms of the curation pages: thresholds, archiving one of a pair, making a group."""

from django import forms

from memadmin.audit.reason_field import reason_field
from memadmin.composites.models import Composite
from memadmin.memories.revision_fields import StoreRevisionsField
from memadmin.taxonomy.selectors import category_names
from memadmin.web.hidden_fields import LocalPathField

from .analysis import CANDIDATE_FLOOR, EMBEDDING_THRESHOLD, LEXICAL_THRESHOLD
from .grouping import KIND_ORDER
from .services import GROUP_TYPES

NEW_HEAD = "new"


class ThresholdForm(forms.Form):
    """The similarity a pair needs to show, per measure."""

    threshold = forms.FloatField(
        min_value=CANDIDATE_FLOOR["lexical"],
        max_value=1,
        step_size=0.01,
        required=False,
        initial=LEXICAL_THRESHOLD,
        label="Lexical threshold",
        help_text="TF-IDF cosine of the two texts.",
    )
    embedding_threshold = forms.FloatField(
        min_value=CANDIDATE_FLOOR["embedding"],
        max_value=1,
        step_size=0.01,
        required=False,
        initial=EMBEDDING_THRESHOLD,
        label="Embedding threshold",
        help_text="Cosine of the two stored vectors.",
    )

    def thresholds(self) -> dict:
        """Return the thresholds asked for, the defaults where none (or a bad one) was."""
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "lexical": data.get("threshold") or LEXICAL_THRESHOLD,
            "embedding": data.get("embedding_threshold") or EMBEDDING_THRESHOLD,
        }


class ArchiveForm(forms.Form):
    """Archive one memory of a pair, keeping the other, once its review page was read."""

    keep = forms.IntegerField(widget=forms.HiddenInput, required=False)
    # The measure that found the pair: an embedding's says the texts may be a paraphrase.
    kind = forms.ChoiceField(
        choices=[(kind, kind) for kind in KIND_ORDER], widget=forms.HiddenInput, required=False
    )
    # Not required here: a post without it is refused as stale (409), not as a bad form.
    expected_updated_at = forms.IntegerField(widget=forms.HiddenInput, required=False)
    # The memory's store revision as the page read it (a lifecycle store; empty otherwise).
    store_revisions = StoreRevisionsField()
    reason = reason_field(
        required=True,
        label="Why archive it",
        help_text="Kept in the history, after the memory kept: why this one can go.",
    )
    next = LocalPathField()  # the page to go back to; another site's cleans to ""


class GroupForm(forms.Form):
    """Confirm a theme or alternatives composite of a group of memories."""

    ids = forms.TypedMultipleChoiceField(coerce=int, widget=forms.MultipleHiddenInput)
    type = forms.ChoiceField(
        choices=[(value, label) for value, label in Composite.Type.choices if value in GROUP_TYPES]
    )
    head = forms.ChoiceField(widget=forms.RadioSelect, label="Head")
    header_text = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="New header memory",
        help_text="Used when the head is a new header memory.",
    )
    header_category = forms.ChoiceField(required=False, label="Its category")
    title = forms.CharField(required=False, max_length=200)
    reason = reason_field()
    # `memories_version` of the group the page listed: grouping memories saved or archived
    # since, or a request that says none, is refused.
    version = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def __init__(self, *args, project, memories, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ids"].choices = [(m.pk, m.pk) for m in memories]
        self.fields["head"].choices = [
            (
                str(m.pk),
                f"#{m.display_id} (importance {m.importance if m.importance is not None else '—'})",
            )
            for m in memories
        ] + [(NEW_HEAD, "a new header memory")]
        self.fields["header_category"].choices = [
            (name, name) for name in category_names(project, writable_only=True)
        ]
