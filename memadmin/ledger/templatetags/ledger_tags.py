"""The ledger on the memory page: `{% load ledger_tags %}{% memory_fragments memory %}`, `{% memory_injection memory %}`."""

from django import template
from django.urls import reverse

from memadmin.core.fragments import is_fragment_candidate
from memadmin.ledger.memory_injection import memory_injection as injection_of
from memadmin.memories.models import Memory
from memadmin.web.addresses import address

register = template.Library()


def is_long(memory: Memory) -> bool:
    """Return True for a live memory long enough, and structured enough, to fragment."""
    return memory.status != Memory.Status.ARCHIVED and is_fragment_candidate(memory.content)


@register.inclusion_tag("ledger/includes/memory_fragments.html", takes_context=True)
def memory_fragments(context, memory: Memory) -> dict:
    """Render the original a header was fragmented from, and "Fragment" for a long memory."""
    can = context.get("can", {})
    return {
        "memory": memory,
        "originals": Memory.objects.filter(
            superseded_by=memory, metadata__fragmented_into=memory.pk
        ).only("id", "upstream_id", "content"),
        "can_fragment": bool(can.get("edit")) and is_long(memory),
    }


@register.inclusion_tag("ledger/includes/memory_injection.html")
def memory_injection(memory: Memory) -> dict:
    """Render "injected at budget B: yes or no, and why", with a link to the memory's row."""
    injection = injection_of(memory)
    if injection is None:
        return {"memory": memory, "injection": None}
    row = injection.display_id
    ledger_url = address(
        reverse("ledger:page", args=[memory.project_id]),
        mode=injection.mode,
        find=row,
        anchor=f"row-{row}",
    )
    return {"memory": memory, "injection": injection, "ledger_url": ledger_url}
