"""What a composite diagram shows, in drawing coordinates, before it becomes SVG.

Each kind's layout places boxes, edges and frames in a full-size coordinate space (960
wide, as tall as it needs); the renderer draws that space as it is, or shrunk into a
thumbnail. A box shows its memory's text wrapped on up to three lines; the tooltip (and the
link's label, for screen readers) holds the whole text.
"""

import textwrap
from dataclasses import dataclass, field
from typing import Literal

from memadmin.core.diagrams.markup import ELLIPSIS, plain, shorten

WIDTH = 960.0
MARGIN = 16.0
BOX_WIDTH = 200.0
LINE_HEIGHT = 14.0
LABEL_LINES = 3
BOX_HEIGHT = LABEL_LINES * LINE_HEIGHT + 10.0
LINE_CHARACTERS = 29  # what fits on a line of a box at the label's font size
TOOLTIP_CHARACTERS = 4000  # a memory's whole text, however long it may be kept
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
    """A node placed at a centre point, with the lines of text it shows and its tooltip."""

    node: Node
    role: Role
    x: float
    y: float
    caption: tuple[str, ...]
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
    """Return the box of a node at a centre point, its caption wrapped to fit the box."""
    prefix += f"#{node.id} "  # the id tells apart boxes whose texts begin alike
    tooltip = f"{prefix}{shorten(node.label, TOOLTIP_CHARACTERS)}"
    if role == "cursor":
        tooltip += " (read position)"
    if not plain(node.label):
        return Box(node, role, x, y, (prefix.rstrip(),), tooltip)
    width = LINE_CHARACTERS - (3 if role == "head" else 0)  # the head's is bold
    caption = wrapped(prefix + plain(node.short or node.label), width, LABEL_LINES)
    return Box(node, role, x, y, caption, tooltip)


def wrapped(text: str, width: int, lines: int) -> tuple[str, ...]:
    """Return the text on at most `lines` lines of `width` characters, an ellipsis ending a
    text cut short (a word longer than a line is broken)."""
    folded = textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)
    if len(folded) <= lines:
        return tuple(folded)
    last = shorten(" ".join(folded[lines - 1 :]), width)
    if not last.endswith(ELLIPSIS):
        last = last[: width - 1] + ELLIPSIS
    return (*folded[: lines - 1], last)


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
