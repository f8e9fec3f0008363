"""The composite picker's endpoint: at most twenty composites for what is typed."""

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.memories.picker import COMPOSITE_HINT, picker_response
from memadmin.web.htmx_request import HtmxHttpRequest

from .selectors import composite_matches


def composite_label(composite) -> str:
    """Return how a picker names a composite: id, title or type, project, head."""
    title = composite.title or composite.get_type_display()
    return (
        f"#{composite.pk} · {title} ({composite.type}, {composite.project.name}, "
        f"head #{composite.head.display_id})"
    )


def _find(term: str, project: int | None) -> list[tuple[str, str]]:
    return [(f"#{c.pk}", composite_label(c)) for c in composite_matches(term, project=project)]


@require_GET
@role_required("viewer")
def composite_pick(request: HtmxHttpRequest) -> HttpResponse:
    """Answer the composite picker: matches by id or by a word of the title, or the field."""
    return picker_response(request, url_name="composites:pick", hint=COMPOSITE_HINT, find=_find)
