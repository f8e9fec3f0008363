"""The related-memories section of the memory page, read from the precomputed neighbours, and
the near-duplicates page's archive forms."""

from django import template

from memadmin.curation.forms import ArchiveForm
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


@register.simple_tag
def archive_form(archived, kept, next_url: str) -> ArchiveForm:
    """Return the form archiving `archived` and keeping `kept`, from the version shown.

    Its fields are hidden and carry no id: a page lists two such forms per pair.
    """
    initial = {"keep": kept.pk, "expected_updated_at": archived.updated_at, "next": next_url}
    return ArchiveForm(initial=initial, auto_id=False)
