"""The structure assistant's form: which suggestions to apply, their headers as edited, why."""

from django import forms

from memadmin.core.structure import Suggestion

REASON_MAX_CHARS = 500
WHICH = (("chosen", "Apply the chosen"), ("all", "Apply all"))


class SuggestionsForm(forms.Form):
    """One box per suggestion (`chosen`), one header box per suggestion (`header-<key>`),
    a reason, and the button pressed (`apply`: the chosen ones, or all)."""

    chosen = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "invalid_choice": "A suggestion you chose changed since the page was shown (a memory, "
            "its text or its group changed): nothing was applied. The page now shows the "
            "suggestions as they are."
        },
    )
    reason = forms.CharField(
        required=False,
        max_length=REASON_MAX_CHARS,
        label="Reason",
        widget=forms.TextInput(attrs={"placeholder": "optional, kept in the history", "size": 60}),
    )
    apply = forms.ChoiceField(choices=WHICH, initial="chosen", widget=forms.HiddenInput)

    def __init__(self, *args, suggestions: list[Suggestion], **kwargs):
        super().__init__(*args, **kwargs)
        self.suggestions = suggestions
        self.fields["chosen"].choices = [(s.key, s.header) for s in suggestions]
        for suggestion in suggestions:
            self.fields[f"header-{suggestion.key}"] = forms.CharField(
                required=False,
                initial=suggestion.header,
                label="Header",
                widget=forms.Textarea(attrs={"rows": 3}),
            )

    def header_field(self, suggestion: Suggestion):
        """Return the bound header box of a suggestion, for the page to draw beside it."""
        return self[f"header-{suggestion.key}"]

    def keys(self) -> list[str]:
        """Return the keys to apply: every suggestion's for "Apply all", else those ticked."""
        if self.cleaned_data["apply"] == "all":
            return [suggestion.key for suggestion in self.suggestions]
        return list(self.cleaned_data["chosen"])

    def headers(self) -> dict[str, str]:
        """Return each suggestion's header as the form holds it, by key."""
        return {
            s.key: self.cleaned_data.get(f"header-{s.key}") or s.header for s in self.suggestions
        }
