"""The composite tables of each store on the Import/export page: `{% store_composites %}`."""

from django import template

from ..composite_tables import DROP_CONFIRMATION, store_composites_report
from ..models import UpstreamStore

register = template.Library()


@register.inclusion_tag("interop/includes/store_composites.html", takes_context=True)
def store_composites(context) -> dict:
    """Render, per store, whether composites are published there, with the curator's controls."""
    return {
        "reports": [store_composites_report(store) for store in UpstreamStore.objects.all()],
        "can_curate": bool(context.get("can", {}).get("curate")),
        "csrf_token": context.get("csrf_token"),
        "drop_word": DROP_CONFIRMATION,
    }
