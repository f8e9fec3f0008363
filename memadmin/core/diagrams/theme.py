"""The theme layout: a star, the head in the centre and the members around it."""

import math

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

NEAREST = BOX_WIDTH + 40.0  # horizontal distance from the head's centre to the nearest member's
FARTHEST = WIDTH / 2 - MARGIN - BOX_WIDTH / 2


def layout(head: Node, members: list[Node], cursor: int | None) -> Scene:
    """Place the members around the head, joined to it by plain lines."""
    scene = star(head, members, cursor, inward=False)
    scene.legend = [("head", "theme head"), ("member", "member")]
    if cursor is not None:
        scene.legend.append(("cursor", "read position (cursor)"))
    if not members:
        head_box = scene.boxes[0]
        note_x = head_box.x + BOX_WIDTH / 2 + 12
        scene.notes.append(Note(note_x, head_box.y, "No members yet."))
    return scene


def star(head: Node, members: list[Node], cursor: int | None, *, inward: bool) -> Scene:
    """Place the members clockwise around the head: down the right side, up the left.

    Each side is an arc of evenly spaced rows, so labels never overlap however many
    members there are; the arc bulges outward at the head's height. With `inward`, each
    edge is an arrow from the member to the head.
    """
    right = (len(members) + 1) // 2
    sides = (right, len(members) - right)
    step = BOX_HEIGHT + (12.0 if max(sides) <= 4 else 6.0)
    span = (max(*sides, 1) - 1) * step
    centre_x, centre_y = WIDTH / 2, MARGIN + BOX_HEIGHT / 2 + span / 2
    head_box = box_for(head, "head", centre_x, centre_y)
    scene = Scene(WIDTH, 2 * MARGIN + BOX_HEIGHT + span, boxes=[head_box])
    for index, member in enumerate(members):
        on_right = index < right
        count, row = (sides[0], index) if on_right else (sides[1], sides[1] - 1 - (index - right))
        offset = (row - (count - 1) / 2) * step
        reach = (count - 1) * step / 2 + step / 2
        bulge = math.sqrt(max(0.0, 1 - (offset / reach) ** 2))
        distance = NEAREST + (FARTHEST - NEAREST) * bulge
        x = centre_x + distance if on_right else centre_x - distance
        box = box_for(member, role_of(index, cursor), x, centre_y + offset)
        scene.boxes.append(box)
        if inward:
            scene.edges.append(straight_edge(box, head_box, directed=True))
        else:
            scene.edges.append(straight_edge(head_box, box, directed=False))
    return scene
