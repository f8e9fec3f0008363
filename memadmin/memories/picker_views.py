"""The memory picker's endpoint: at most twenty memories for what is typed."""

from django.http import HttpResponse
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.web.htmx_request import HtmxHttpRequest

from .picker import MEMORY_HINT, picker_response
from .selectors import memory_matches

LABEL_CHARS = 80


def _label(memory) -> str:
    text = memory.content if len(memory.content) <= LABEL_CHARS else memory.content[:79] + "…"
    return f"#{memory.display_id} · {memory.category} · {text}"


def _find(term: str, project: int | None) -> list[tuple[str, str]]:
    return [(f"#{m.display_id}", _label(m)) for m in memory_matches(term, project=project)]


@require_GET
@role_required("viewer")
def memory_pick(request: HtmxHttpRequest) -> HttpResponse:
    """Answer the memory picker: matches by id or by a word of the text, or the field, chosen."""
    return picker_response(request, url_name="memories:pick", hint=MEMORY_HINT, find=_find)
