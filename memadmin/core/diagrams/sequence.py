"""The sequence layout: the head, then each member in order, as a chain read in rows."""

import itertools

from memadmin.core.diagrams.scene import (
    BOX_HEIGHT,
    BOX_WIDTH,
    MARGIN,
    WIDTH,
    Box,
    Edge,
    Node,
    Note,
    Scene,
    box_for,
    role_of,
)

COLUMNS = 4
ROW_GAP = 32.0
COLUMN_GAP = (WIDTH - 2 * MARGIN - COLUMNS * BOX_WIDTH) / (COLUMNS - 1)


def layout(head: Node, members: list[Node], cursor: int | None) -> Scene:
    """Place the chain head -> 1 -> 2 ... left to right, wrapping into rows of four."""
    boxes = [box_for(head, "head", *_centre(0))]
    for index, member in enumerate(members):
        role = role_of(index, cursor)
        boxes.append(box_for(member, role, *_centre(index + 1), prefix=f"{index + 1}. "))
    rows = (len(boxes) + COLUMNS - 1) // COLUMNS
    scene = Scene(WIDTH, 2 * MARGIN + rows * (BOX_HEIGHT + ROW_GAP) - ROW_GAP, boxes=boxes)
    scene.edges = [_link(before, after) for before, after in itertools.pairwise(boxes)]
    scene.legend = [("head", "head"), ("member", "step")]
    if cursor is not None:
        scene.legend.append(("cursor", "read position (cursor)"))
    if not members:
        scene.notes.append(Note(boxes[0].x + BOX_WIDTH / 2 + 12, boxes[0].y, "No steps yet."))
    return scene


def _centre(slot: int) -> tuple[float, float]:
    row, column = divmod(slot, COLUMNS)
    x = MARGIN + BOX_WIDTH / 2 + column * (BOX_WIDTH + COLUMN_GAP)
    y = MARGIN + BOX_HEIGHT / 2 + row * (BOX_HEIGHT + ROW_GAP)
    return x, y


def _link(before: Box, after: Box) -> Edge:
    """Return the arrow from one step to the next: straight in a row, an elbow between rows."""
    if after.y == before.y:
        points = ((before.x + BOX_WIDTH / 2, before.y), (after.x - BOX_WIDTH / 2, after.y))
    else:
        bottom = before.y + BOX_HEIGHT / 2
        middle = bottom + ROW_GAP / 2
        points = (
            (before.x, bottom),
            (before.x, middle),
            (after.x, middle),
            (after.x, after.y - BOX_HEIGHT / 2),
        )
    return Edge(points, before.node.id, after.node.id, directed=True)
