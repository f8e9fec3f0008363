"""The form of "mark synced": the note and the version of what was reviewed."""

from django import forms

NOTE_MAX_CHARS = 200


class MarkSyncedForm(forms.Form):
    reason = forms.CharField(
        required=False,
        max_length=NOTE_MAX_CHARS,
        error_messages={"max_length": "Keep the note to %(limit_value)d characters at most."},
    )
    # StaleHeader.version of the queue entry reviewed: marking is refused if it moved since.
    version = forms.CharField(required=False, max_length=64)

    def refusal(self) -> forms.ValidationError:
        """Return the form's errors as one refusal, for the queue to show."""
        return forms.ValidationError([e for errors in self.errors.values() for e in errors])
