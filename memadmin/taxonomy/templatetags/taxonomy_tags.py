"""Template helpers of the criteria area: short hashes and the surface-hash panel."""

from django import template

register = template.Library()

SHORT_HASH = 12


@register.filter
def short_hash(value: str) -> str:
    """Return the first twelve hex digits of a digest, enough to tell values apart."""
    return (value or "")[:SHORT_HASH]


@register.inclusion_tag("taxonomy/includes/surface.html")
def surface_panel(project, surface, records, title: str = "Prompt-surface hash"):
    """Render the surface hash now, whether its history accounts for it, and its last values."""
    return {"project": project, "surface": surface, "records": records, "title": title}
