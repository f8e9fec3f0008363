"""Hidden fields every app's forms use: the page to go back to, and the version a page shows.

A form shown again after a refusal renders what was posted; a field that names the version
the page shows (a fingerprint, a timestamp) must instead carry the version shown now, or the
next post would be refused again, or would confirm something the person never saw (`carry`).
"""

from django import forms
from django.utils.http import url_has_allowed_host_and_scheme


def carry(form: forms.Form, name: str, value) -> None:
    """Make the form's field `name` render `value`, whether the form is bound to a post or not."""
    if form.is_bound:
        form.data = form.data.copy()
        form.data[form.add_prefix(name)] = value
    else:
        form.initial[name] = value


class LocalPathField(forms.CharField):
    """A page of this site to go back to after a post (`next`): a path, its query kept.

    Anything else (another site, `//host`, `/\\host`, a scheme) cleans to "": the view then
    goes to its own default page. Never an error: where to go back to is not worth refusing.
    """

    widget = forms.HiddenInput

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def clean(self, value) -> str:
        target = super().clean(value) or ""
        local = target.startswith("/") and url_has_allowed_host_and_scheme(target, None)
        return target if local else ""


class BackForm(forms.Form):
    """The page a plain POST form was on (`next`), to go back to; rendered without an id."""

    next = LocalPathField()

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", False)
        super().__init__(*args, **kwargs)

    def target(self) -> str:
        """Return the page to go back to, or "" if the post named none of this site's."""
        return self.cleaned_data["next"] if self.is_valid() else ""
