"""The cause layout: the causes, each with an arrow pointing at the head."""

from memadmin.core.diagrams import theme
from memadmin.core.diagrams.scene import (
    BOX_HEIGHT,
    BOX_WIDTH,
    MARGIN,
    WIDTH,
    Node,
    Note,
    Scene,
    box_for,
    role_of,
    straight_edge,
)

ONE_COLUMN_AT_MOST = 12


def layout(head: Node, members: list[Node], cursor: int | None) -> Scene:
    """Place the causes in a column on the left, with arrows to the head on the right.

    Past twelve causes a column grows too long and its arrows too steep: the causes then
    surround the head, as a theme's members do, each still with an arrow pointing at it.
    Arrows end on the head's border.
    """
    if len(members) > ONE_COLUMN_AT_MOST:
        scene = theme.star(head, members, cursor, inward=True)
    else:
        scene = _column(head, members, cursor)
    scene.legend = [("member", "cause"), ("head", "what they led to (head)")]
    if cursor is not None:
        scene.legend.append(("cursor", "read position (cursor)"))
    return scene


def _column(head: Node, members: list[Node], cursor: int | None) -> Scene:
    step = BOX_HEIGHT + (12.0 if len(members) <= 6 else 6.0)
    span = max(len(members) - 1, 0) * step
    top = MARGIN + BOX_HEIGHT / 2
    head_box = box_for(head, "head", WIDTH - MARGIN - BOX_WIDTH / 2, top + span / 2)
    scene = Scene(WIDTH, 2 * MARGIN + BOX_HEIGHT + span, boxes=[head_box])
    for index, member in enumerate(members):
        box = box_for(member, role_of(index, cursor), MARGIN + BOX_WIDTH / 2, top + index * step)
        scene.boxes.append(box)
        scene.edges.append(straight_edge(box, head_box, directed=True))
    if not members:
        note_x = head_box.x - BOX_WIDTH / 2 - 12
        scene.notes.append(Note(note_x, head_box.y, "No causes yet.", anchor="end"))
    return scene
