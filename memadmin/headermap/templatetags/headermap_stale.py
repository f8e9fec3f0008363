"""The stale-header count in the navigation: `{% load headermap_stale %}{% stale_header_count %}`."""

from django import template

from memadmin.headermap.stale_selectors import stale_header_count as count_stale

register = template.Library()


@register.inclusion_tag("headermap/includes/stale_badge.html")
def stale_header_count() -> dict:
    """Render how many headers are stale, linking to their queue (one query)."""
    return {"stale_count": count_stale()}
