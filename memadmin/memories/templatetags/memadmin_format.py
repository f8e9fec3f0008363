"""Template filters for upstream's millisecond timestamps and stored JSON."""

import json

from django import template

from memadmin.core.clock import ms_to_datetime

register = template.Library()


@register.filter
def ms_datetime(ms):
    """Return an aware datetime for a millisecond timestamp (None stays None)."""
    return ms_to_datetime(ms) if ms not in (None, "") else None


@register.filter
def as_json(value) -> str:
    """Return the value as compact JSON, keys sorted (metadata reads as it is stored)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
