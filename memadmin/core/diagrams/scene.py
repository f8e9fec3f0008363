"""What a composite diagram shows, in drawing coordinates, before it becomes SVG.

Each kind's layout places boxes, edges and frames in a full-size coordinate space (640
wide, as tall as it needs); the renderer draws that space as it is, or shrunk into a
thumbnail.
"""

from dataclasses import dataclass, field
from typing import Literal

from memadmin.core.diagrams.markup import plain, shorten

WIDTH = 640.0
MARGIN = 16.0
BOX_WIDTH = 130.0
BOX_HEIGHT = 28.0
LABEL_CHARACTERS = 19  # what fits in a box at the label's font size
TOOLTIP_CHARACTERS = 200
MIN_COMMON_CHARACTERS = 8  # a shared start shorter than this stays in the captions

Role = Literal["head", "member", "cursor"]
Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Node:
    """A memory drawn in a diagram: its id, a label, and an optional link to its page."""

    id: int
    label: str
    href: str | None = None
    # What the box shows when it differs from the label: the words that set it apart.
    short: str = ""


@dataclass(frozen=True, slots=True)
class Box:
    """A node placed at a centre point, with the text it shows and its tooltip."""

    node: Node
    role: Role
    x: float
    y: float
    caption: str
    tooltip: str


@dataclass(frozen=True, slots=True)
class Edge:
    """A line through the points, from one node to another (or to a frame if no target)."""

    points: tuple[Point, ...]
    source: int
    target: int | None
    directed: bool
    dashed: bool = False


@dataclass(frozen=True, slots=True)
class Frame:
    """A dashed outline around a group of boxes, with a caption at its top."""

    x: float
    y: float
    width: float
    height: float
    caption: str


@dataclass(frozen=True, slots=True)
class Note:
    """A line of explanatory text, such as "No members yet."."""

    x: float
    y: float
    text: str
    anchor: Literal["start", "middle", "end"] = "start"


@dataclass(slots=True)
class Scene:
    """Everything one diagram draws, and the legend's entries for the full size."""

    width: float
    height: float
    boxes: list[Box] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    legend: list[tuple[Role, str]] = field(default_factory=list)


def box_for(node: Node, role: Role, x: float, y: float, *, prefix: str = "") -> Box:
    """Return the box of a node at a centre point, its caption fitted to the box."""
    prefix += f"#{node.id} "  # the id tells apart boxes whose texts begin alike
    room = LABEL_CHARACTERS - len(prefix) - (2 if role == "head" else 0)  # the head's is bold
    caption = prefix + shorten(node.short or node.label, room)
    tooltip = f"{prefix}{shorten(node.label, TOOLTIP_CHARACTERS)}"
    if role == "cursor":
        tooltip += " (read position)"
    if not plain(node.label):
        caption = prefix.rstrip()
    return Box(node, role, x, y, caption, tooltip)


def distinct_parts(labels: list[str]) -> list[str]:
    """Return each label without the words every one of them starts with.

    "Release, step 1: drain" and "Release, step 2: deploy" become "1: drain" and "2:
    deploy"; labels that share less than a few words, or a single label, come back as they are.
    """
    if len(labels) < 2:
        return list(labels)
    words = [plain(label).split(" ") for label in labels]
    common = 0
    for group in zip(*words, strict=False):
        if len(set(group)) != 1:
            break
        common += 1
    if len(" ".join(words[0][:common])) < MIN_COMMON_CHARACTERS:  # too little to be worth it
        return list(labels)
    return [" ".join(split[common:]) or label for split, label in zip(words, labels, strict=True)]


def role_of(index: int, cursor: int | None) -> Role:
    """Return the role of the member at this index: the cursor's, or an ordinary member's."""
    return "cursor" if index == cursor else "member"


def on_boundary(box: Box, toward: Point) -> Point:
    """Return where the line from the box's centre toward a point leaves the box."""
    dx, dy = toward[0] - box.x, toward[1] - box.y
    if dx == 0 and dy == 0:
        return box.x, box.y
    scales = []
    if dx:
        scales.append(BOX_WIDTH / 2 / abs(dx))
    if dy:
        scales.append(BOX_HEIGHT / 2 / abs(dy))
    scale = min(scales)
    return box.x + dx * scale, box.y + dy * scale


def straight_edge(source: Box, target: Box, *, directed: bool, dashed: bool = False) -> Edge:
    """Return the edge between two boxes, from border to border."""
    start = on_boundary(source, (target.x, target.y))
    end = on_boundary(target, (source.x, source.y))
    return Edge((start, end), source.node.id, target.node.id, directed, dashed)
