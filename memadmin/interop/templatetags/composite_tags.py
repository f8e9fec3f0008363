"""The composite tables of each store on the Import/export page: `{% store_composites %}`."""

from django import template

from ..composites.tables import store_composites_report
from ..forms import CompositeTablesDropForm
from ..models import UpstreamStore

register = template.Library()


@register.inclusion_tag("interop/includes/store_composites.html", takes_context=True)
def store_composites(context) -> dict:
    """Render, per store, whether composites are published there, with the curator's controls."""
    refused = context.get("drop_form")  # the drop word refused, shown again with its error
    return {
        "reports": [
            (
                store_composites_report(store),
                refused
                if refused is not None and refused.store.pk == store.pk
                else CompositeTablesDropForm(store=store),
            )
            for store in UpstreamStore.objects.all()
        ],
        "can_curate": bool(context.get("can", {}).get("curate")),
        "csrf_token": context.get("csrf_token"),
    }
