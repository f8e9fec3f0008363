"""The alternatives layout: the head above one framed set of peers, of which one is chosen."""

from memadmin.core.diagrams.scene import (
    BOX_HEIGHT,
    BOX_WIDTH,
    MARGIN,
    WIDTH,
    Edge,
    Frame,
    Node,
    Note,
    Scene,
    box_for,
    role_of,
)

COLUMNS = 4
GAP = 16.0
PADDING = 12.0
CAPTION = 22.0
LINK = 36.0  # the length of the link between the head and the frame


def layout(head: Node, members: list[Node], cursor: int | None) -> Scene:
    """Place the head at the top and the members side by side in a frame below it.

    One dashed link joins the head to the frame, captioned "choose one": the members are
    peers, and the head is the decision between them.
    """
    centre_x = WIDTH / 2
    head_box = box_for(head, "head", centre_x, MARGIN + BOX_HEIGHT / 2)
    scene = Scene(WIDTH, 2 * MARGIN + BOX_HEIGHT, boxes=[head_box])
    scene.legend = [("head", "decision (head)"), ("member", "alternative")]
    if not members:
        below = head_box.y + BOX_HEIGHT / 2 + 14
        scene.notes.append(Note(centre_x, below, "No alternatives yet.", anchor="middle"))
        scene.height += 24
        return scene
    columns = min(len(members), COLUMNS)
    rows = (len(members) + COLUMNS - 1) // COLUMNS
    grid_width = columns * BOX_WIDTH + (columns - 1) * GAP
    frame_width = max(grid_width + 2 * PADDING, 200.0)
    frame_top = MARGIN + BOX_HEIGHT + LINK
    frame_height = CAPTION + rows * (BOX_HEIGHT + GAP) - GAP + PADDING
    scene.frames.append(
        Frame(
            centre_x - frame_width / 2,
            frame_top,
            frame_width,
            frame_height,
            f"choose one of {len(members)}",
        )
    )
    scene.edges.append(
        Edge(
            ((centre_x, MARGIN + BOX_HEIGHT), (centre_x, frame_top)),
            head.id,
            None,
            directed=False,
            dashed=True,
        )
    )
    for index, member in enumerate(members):
        row, column = divmod(index, COLUMNS)
        in_row = min(len(members) - row * COLUMNS, COLUMNS)
        row_left = centre_x - (in_row * BOX_WIDTH + (in_row - 1) * GAP) / 2
        x = row_left + BOX_WIDTH / 2 + column * (BOX_WIDTH + GAP)
        y = frame_top + CAPTION + BOX_HEIGHT / 2 + row * (BOX_HEIGHT + GAP)
        scene.boxes.append(box_for(member, role_of(index, cursor), x, y))
    scene.height = frame_top + frame_height + MARGIN
    if cursor is not None:
        scene.legend.append(("cursor", "read position (cursor)"))
    return scene
