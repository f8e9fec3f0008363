"""The related-memories section of the memory page, read from the precomputed neighbours."""

from django import template

from memadmin.curation.selectors import related_memories

register = template.Library()


@register.inclusion_tag("curation/related_section.html", takes_context=True)
def related_memories_section(context, memory) -> dict:
    """Render the memory's five nearest others and the composites each shares with it."""
    return {
        "memory": memory,
        "related": related_memories(memory),
        "can": context.get("can", {}),
    }
