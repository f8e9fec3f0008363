"""The memory timeline on the memory page: `{% load audit_tags %}{% memory_timeline memory %}`."""

from django import template

from memadmin.audit.undo_messages import undo_by_row as by_row_of
from memadmin.audit.undo_messages import undo_target as target_of
from memadmin.history.timeline import memory_timeline as timeline_of

register = template.Library()

RECENT = 20


@register.inclusion_tag("audit/includes/memory_timeline.html")
def memory_timeline(memory, limit: int = RECENT) -> dict:
    """Render the memory's latest changes, newest first, with a link to all its versions."""
    entries = timeline_of(memory)
    return {"memory": memory, "entries": entries[:limit], "more": len(entries) > limit}


@register.filter
def action_words(action: str) -> str:
    """Return an audit action as words: `person_created` reads "person created"."""
    return str(action).replace("_", " ")


@register.filter
def undo_target(message) -> str:
    """Return the address a message's Undo form posts to, or "" (see `audit.undo_messages`)."""
    return target_of(message)


@register.filter
def undo_by_row(message) -> bool:
    """Return True if a message also offers its change's memories one by one."""
    return by_row_of(message)
