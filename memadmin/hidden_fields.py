"""What a page's hidden field carries when it must be what the page shows, not what was posted.

A form shown again after a refusal renders what was posted; a field that names the version
the page shows (a fingerprint, a timestamp) must instead carry the version shown now, or the
next post would be refused again, or would confirm something the person never saw.
"""

from django import forms


def carry(form: forms.Form, name: str, value) -> None:
    """Make the form's field `name` render `value`, whether the form is bound to a post or not."""
    if form.is_bound:
        form.data = form.data.copy()
        form.data[form.add_prefix(name)] = value
    else:
        form.initial[name] = value
