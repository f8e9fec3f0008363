"""The reason a person gives for a change, kept on its audit record and history rows.

Every form that changes the store offers the same optional box, with one limit and one
error; a form says more about where the reason goes with its own label or help text.
"""

from django import forms

REASON_MAX_CHARS = 500
REASON_HELP = "Why (kept in the history)."


def reason_field(**overrides) -> forms.CharField:
    """Return the optional reason box (at most REASON_MAX_CHARS), with any option overridden."""
    options = {
        "required": False,
        "max_length": REASON_MAX_CHARS,
        "help_text": REASON_HELP,
        "error_messages": {"max_length": "Keep the reason to %(limit_value)d characters at most."},
    } | overrides
    return forms.CharField(**options)
