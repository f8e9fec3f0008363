"""Template filters for upstream's millisecond timestamps."""

from django import template

from memadmin.core.clock import ms_to_datetime

register = template.Library()


@register.filter
def ms_datetime(ms):
    """Return an aware datetime for a millisecond timestamp (None stays None)."""
    return ms_to_datetime(ms) if ms not in (None, "") else None
