"""Turn a composite with its prefetched members into an inline SVG picture."""

from django.urls import reverse

from memadmin.core.diagrams import Node, Size, composite_svg
from memadmin.memories.models import Memory

from .models import Composite


def _node(memory: Memory) -> Node:
    return Node(
        id=memory.display_id,
        label=memory.content,
        href=reverse("memories:detail", args=[memory.pk]),
    )


def composite_picture(composite: Composite, *, size: Size = "full") -> str:
    """Return the composite's diagram; the members must be prefetched in position order.

    The cursor is marked on sequences only: it means nothing for the other types.
    """
    members = [_node(row.member) for row in composite.members.all()]
    cursor = composite.cursor if composite.type == Composite.Type.SEQUENCE else None
    return composite_svg(composite.type, _node(composite.head), members, cursor=cursor, size=size)
