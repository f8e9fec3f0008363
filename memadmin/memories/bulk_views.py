"""The memory list's bulk bar asks here which actions the ticked rows allow.

The actions themselves, and merges, are curation's (`memadmin/curation/bulk_views.py`).
"""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.core.numbers import ids_in
from memadmin.web.htmx_request import HtmxHttpRequest

from .bulk_forms import BulkForm, ShownRowsForm, category_choices
from .bulk_offers import actions_allowed, restore_withheld
from .selectors import memories_by_ids
from .tables import MAX_PER_PAGE


@require_GET
@role_required("editor")
def bulk_actions(request: HtmxHttpRequest) -> HttpResponse:
    """Answer the list's action select narrowed to what the ticked rows allow.

    With no row ticked, `shown` (the page's ids, comma-separated) stands for the selection
    to come. The action chosen stays chosen while it is still allowed.
    """
    chosen = ids_in(request.GET.getlist("ids"))[:MAX_PER_PAGE]
    asked = ShownRowsForm(request.GET)
    asked.is_valid()  # the rows shown are advice: what is not an id is left out, never refused
    ids = chosen or asked.cleaned_data["shown"][:MAX_PER_PAGE]
    memories = memories_by_ids(ids)
    projects = {memory.project for memory in memories}
    project = next(iter(projects)) if len(projects) == 1 else None
    categories = category_choices(project, common=project is None)
    actions = actions_allowed(memories, chosen=bool(chosen), can_move=bool(categories))
    current = request.GET.get("action", "")
    form = BulkForm(initial={"action": current} if current in actions else {}, actions=actions)
    return render(
        request,
        "memories/list.html#bulk-action-choice",
        {
            "bulk_form": form,
            "bulk_offered": actions,
            # Said for the ticked rows, or for the page's rows while none is ticked.
            "bulk_withheld": restore_withheld(memories),
        },
    )
