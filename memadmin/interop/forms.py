"""A curator's answers on the Import/export page: a conflict's side or merged text, the drop word.

Each form gets ids of its own (`auto_id`), since a page shows one per conflict or per store;
the POST names stay `keep`, `content`, `next`, `version` and `confirm`.
"""

from django import forms
from django.core.exceptions import ValidationError

from memadmin.audit.reason_field import reason_field
from memadmin.memories.services import CONTENT_MAX_CHARS
from memadmin.web.hidden_fields import LocalPathField

from .composites.conflict_services import CHOICES as COMPOSITE_CHOICES
from .composites.conflict_services import KEEP_UNKNOWN as COMPOSITE_KEEP_UNKNOWN
from .composites.tables import DROP_CONFIRMATION, DROP_UNCONFIRMED
from .conflicts.services import CHOICES, KEEP_MERGED, MERGED_TEXT_MISSING
from .models import SyncConflict, UpstreamStore


class ConflictResolveForm(forms.Form):
    """Which version of a conflicted memory to keep; the merged text when that is the choice."""

    # Sent by the side buttons, or as "merged" by the merge form: a choice, not a control.
    keep = forms.ChoiceField(
        choices=list(CHOICES.items()),
        widget=forms.HiddenInput,
        error_messages={"invalid_choice": f"Choose one of: {', '.join(CHOICES)}."},
    )
    content = forms.CharField(
        required=False,
        strip=False,
        max_length=CONTENT_MAX_CHARS,
        label="Merged text",
        # Required in the browser: this box is shown only in the form that saves it.
        widget=forms.Textarea(attrs={"rows": 4, "required": True}),
        error_messages={"max_length": f"A memory holds at most {CONTENT_MAX_CHARS} characters."},
    )
    next = LocalPathField()
    reason = reason_field(label="Why this merged text")  # the side buttons' form: `for_sides`

    def __init__(self, *args, conflict: SyncConflict, next_url: str = "", **kwargs):
        """Bind to one conflict: its own ids, memadmin's text to start the merge from."""
        kwargs.setdefault("auto_id", f"conflict-{conflict.pk}-%s")
        kwargs.setdefault(
            "initial",
            {
                "keep": KEEP_MERGED,
                "content": conflict.memadmin_values.get("content", ""),
                "next": next_url,
            },
        )
        super().__init__(*args, **kwargs)
        self.conflict = conflict

    @classmethod
    def for_sides(cls, conflict: SyncConflict, next_url: str, data=None) -> "ConflictResolveForm":
        """Return the form the two side buttons post: its `next` and its reason box.

        The buttons send `keep`. Its ids are the conflict's with `side-`, apart from the merge
        form's; bound to a refused post (`data`), it shows the reason typed and its error.
        """
        form = cls(
            data,
            conflict=conflict,
            initial={"next": next_url},
            auto_id=f"conflict-{conflict.pk}-side-%s",
        )
        form.fields["reason"].label = "Why keep one side"
        return form

    def clean(self):
        """Refuse a merge without a text: the service would refuse it too."""
        cleaned = super().clean()
        if cleaned.get("keep") == KEEP_MERGED and not cleaned.get("content", "").strip():
            self.add_error("content", MERGED_TEXT_MISSING)
        return cleaned


class CompositeConflictResolveForm(forms.Form):
    """Which side of a composite conflict to keep, over the conflict's version the page showed.

    The side is the button pressed; `version` is `conflict_version`, checked by the service
    (a missing or other one is refused as stale). No ids: a page shows one per conflict.
    """

    # The value of the button pressed: the form renders no control for it.
    keep = forms.ChoiceField(
        choices=list(COMPOSITE_CHOICES.items()),
        error_messages={
            "required": COMPOSITE_KEEP_UNKNOWN,
            "invalid_choice": COMPOSITE_KEEP_UNKNOWN,
        },
    )
    version = forms.CharField(required=False, widget=forms.HiddenInput)
    reason = reason_field()

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", False)
        super().__init__(*args, **kwargs)


class CompositeTablesDropForm(forms.Form):
    """The word a curator types to drop a store's composite tables."""

    confirm = forms.CharField(
        max_length=40,
        label=f'Type "{DROP_CONFIRMATION}" to drop them (a backup is made first)',
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        error_messages={"required": DROP_UNCONFIRMED, "max_length": DROP_UNCONFIRMED},
    )

    def __init__(self, *args, store: UpstreamStore, **kwargs):
        """Bind to one store, with ids of its own."""
        kwargs.setdefault("auto_id", f"drop-{store.pk}-%s")
        super().__init__(*args, **kwargs)
        self.store = store

    def clean_confirm(self) -> str:
        """Accept the word only, in any case and with spaces around it."""
        word = self.cleaned_data["confirm"]
        if word.strip().lower() != DROP_CONFIRMATION:
            raise ValidationError(DROP_UNCONFIRMED, code="drop_unconfirmed")
        return word
