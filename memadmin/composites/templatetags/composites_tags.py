"""The composites section of the memory page: both query paths, in a fixed number of queries."""

from django import template

from memadmin.composites.pictures import composite_picture
from memadmin.composites.selectors import memory_composites
from memadmin.memories.selectors import merge_event

register = template.Library()


@register.inclusion_tag(
    "composites/memory_section.html", takes_context=True, name="memory_composites"
)
def memory_composites_section(context, memory) -> dict:
    """Render the composites a memory heads (with pictures) and those it belongs to.

    Each composite it belongs to links back to that composite's head, with the memory's
    step. A merge result offers its undo to editors.
    """
    paths = memory_composites(memory)
    can = context.get("can", {})
    return {
        "memory": memory,
        "headed": [(c, composite_picture(c, size="thumb")) for c in paths["headed"]],
        "member_of": paths["member_of"],
        "can": can,
        "csrf_token": context.get("csrf_token"),
        "merge_undoable": bool(can.get("edit") and memory.merged_from and merge_event(memory)),
        "archived": memory.status == "archived",
    }
