"""Draw a scene as an inline SVG document, full size or as a thumbnail.

Shapes carry CSS classes (`node head`, `node member`, `node member cursor`, `edge`, `group`)
so the stylesheet decides their colours; each also carries fill and stroke attributes with
the same colours, which the stylesheet overrides, so the picture reads without it. A
thumbnail draws the same scene shrunk into 160 by 100, without text: every node keeps its
tooltip.
"""

import math
from typing import Literal

from memadmin.core.diagrams.markup import Svg, escape, number, safe_href, tag
from memadmin.core.diagrams.scene import (
    BOX_HEIGHT,
    BOX_WIDTH,
    LINE_HEIGHT,
    Box,
    Edge,
    Frame,
    Point,
    Role,
    Scene,
)

Size = Literal["full", "thumb"]

THUMB_WIDTH, THUMB_HEIGHT, THUMB_PADDING = 160.0, 100.0, 4.0
LEGEND_HEIGHT = 30.0
FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"
INK, MUTED, ACCENT, CURSOR = "#1d2430", "#5b6474", "#2856c7", "#f5a524"

# Role: (classes, fill, stroke, stroke width, text colour)
_NODE_STYLE: dict[Role, tuple[str, str, str, float, str]] = {
    "head": ("node head", ACCENT, ACCENT, 1.5, "#fff"),
    "member": ("node member", "#fff", ACCENT, 1.5, INK),
    "cursor": ("node member cursor", "#fff6e0", CURSOR, 3.0, INK),
}


class _Canvas:
    """The mapping from scene coordinates to the SVG's own."""

    def __init__(self, scene: Scene, size: Size) -> None:
        self.full = size == "full"
        if self.full:
            self.scale, self.left, self.top = 1.0, 0.0, 0.0
            legend = LEGEND_HEIGHT if scene.legend else 0.0
            self.width, self.height = scene.width, scene.height + legend
            return
        self.scale = min(
            (THUMB_WIDTH - 2 * THUMB_PADDING) / scene.width,
            (THUMB_HEIGHT - 2 * THUMB_PADDING) / scene.height,
        )
        self.left = (THUMB_WIDTH - scene.width * self.scale) / 2
        self.top = (THUMB_HEIGHT - scene.height * self.scale) / 2
        self.width, self.height = THUMB_WIDTH, THUMB_HEIGHT

    def point(self, point: Point) -> Point:
        """Return a scene point in SVG coordinates."""
        return self.left + point[0] * self.scale, self.top + point[1] * self.scale

    def length(self, length: float) -> float:
        """Return a scene length in SVG units."""
        return length * self.scale


def render(scene: Scene, *, size: Size, classes: str, summary: str) -> str:
    """Return the SVG document of a scene, labelled for assistive technology by `summary`."""
    canvas = _Canvas(scene, size)
    parts = [tag("title", {}, escape(summary))]
    parts += [_frame(canvas, frame) for frame in scene.frames]
    parts += [_edge(canvas, edge) for edge in scene.edges]
    parts += [_box(canvas, box) for box in scene.boxes]
    if canvas.full:
        parts += [_note(note.x, note.y, note.text, note.anchor) for note in scene.notes]
        if scene.legend:
            parts.append(_legend(scene))
    return svg_document(
        parts, width=canvas.width, height=canvas.height, classes=f"{classes} {size}", label=summary
    )


def svg_document(parts: list[str], *, width: float, height: float, classes: str, label: str) -> Svg:
    """Return the root <svg> element around the parts: sized, classed and labelled."""
    attributes = {
        "xmlns": "http://www.w3.org/2000/svg",
        "class": f"diagram {classes}",
        "viewBox": f"0 0 {_n(width)} {_n(height)}",
        "width": _n(width),
        "height": _n(height),
        "role": "img",
        "aria-label": label,
        "font-family": FONT,
    }
    return Svg(tag("svg", attributes, *parts))


def _box(canvas: _Canvas, box: Box) -> str:
    classes, fill, stroke, stroke_width, text_colour = _NODE_STYLE[box.role]
    x, y = canvas.point((box.x - BOX_WIDTH / 2, box.y - BOX_HEIGHT / 2))
    shapes = [
        tag(
            "rect",
            {
                "class": classes,
                "x": x,
                "y": y,
                "width": canvas.length(BOX_WIDTH),
                "height": canvas.length(BOX_HEIGHT),
                "rx": canvas.length(5.0),
                "fill": fill,
                "stroke": stroke,
                "stroke-width": stroke_width if canvas.full else 1.0,
            },
        )
    ]
    if canvas.full:
        top = box.y - (len(box.caption) - 1) * LINE_HEIGHT / 2
        lines = [
            tag("tspan", {"x": box.x, "y": top + index * LINE_HEIGHT}, escape(line))
            for index, line in enumerate(box.caption)
        ]
        shapes.append(
            tag(
                "text",
                {
                    "class": "label",
                    "text-anchor": "middle",
                    "dominant-baseline": "central",
                    "font-size": 12,
                    "font-weight": "bold" if box.role == "head" else None,
                    "fill": text_colour,
                },
                *lines,
            )
        )
    content = "".join(shapes)
    href = safe_href(box.node.href)
    if href:
        content = tag("a", {"href": href, "aria-label": box.tooltip}, content)
    attributes = {"data-id": box.node.id, "data-role": box.role}
    return tag("g", attributes, tag("title", {}, escape(box.tooltip)), content)


def _edge(canvas: _Canvas, edge: Edge) -> str:
    points = [canvas.point(point) for point in edge.points]
    line = tag(
        "polyline",
        {
            "class": "edge",
            "points": " ".join(f"{_n(x)},{_n(y)}" for x, y in points),
            "fill": "none",
            "stroke": MUTED,
            "stroke-width": 1.5 if canvas.full else 0.75,
            "stroke-dasharray": ("5 4" if canvas.full else "2 2") if edge.dashed else None,
            "data-source": edge.source,
            "data-target": edge.target if edge.target is not None else "group",
        },
    )
    if not edge.directed:
        return line
    return line + _arrowhead(points[-2], points[-1], 8.0 if canvas.full else 3.0)


def _arrowhead(tail: Point, tip: Point, length: float) -> str:
    """Return a filled triangle with its point at `tip`, aligned with the segment."""
    angle = math.atan2(tip[1] - tail[1], tip[0] - tail[0])
    spread = 0.45
    corners = [
        tip,
        (tip[0] - length * math.cos(angle - spread), tip[1] - length * math.sin(angle - spread)),
        (tip[0] - length * math.cos(angle + spread), tip[1] - length * math.sin(angle + spread)),
    ]
    return tag(
        "polygon",
        {
            "class": "edge arrowhead",
            "points": " ".join(f"{_n(x)},{_n(y)}" for x, y in corners),
            "fill": MUTED,
        },
    )


def _frame(canvas: _Canvas, frame: Frame) -> str:
    x, y = canvas.point((frame.x, frame.y))
    outline = tag(
        "rect",
        {
            "class": "group",
            "x": x,
            "y": y,
            "width": canvas.length(frame.width),
            "height": canvas.length(frame.height),
            "rx": canvas.length(8.0),
            "fill": "none",
            "stroke": MUTED,
            "stroke-dasharray": "4 3" if canvas.full else "2 2",
        },
    )
    if not canvas.full:
        return outline
    return outline + _note(frame.x + 10, frame.y + 13, frame.caption, "start")


def _note(x: float, y: float, text: str, anchor: str) -> str:
    attributes = {
        "class": "note",
        "x": x,
        "y": y,
        "text-anchor": anchor,
        "dominant-baseline": "central",
        "font-size": 11,
        "font-style": "italic",
        "fill": MUTED,
    }
    return tag("text", attributes, escape(text))


def _legend(scene: Scene) -> str:
    items = []
    x, y = 16.0, scene.height + LEGEND_HEIGHT / 2
    for role, text in scene.legend:
        classes, fill, stroke, stroke_width, _ = _NODE_STYLE[role]
        items.append(
            tag(
                "rect",
                {
                    "class": f"swatch {classes}",
                    "x": x,
                    "y": y - 6,
                    "width": 18,
                    "height": 12,
                    "rx": 3,
                    "fill": fill,
                    "stroke": stroke,
                    "stroke-width": min(stroke_width, 2.0),
                },
            )
        )
        label = {"x": x + 24, "y": y, "dominant-baseline": "central", "font-size": 11}
        items.append(tag("text", {**label, "fill": INK}, escape(text)))
        x += 24 + 7 * len(text) + 20
    return tag("g", {"class": "legend"}, *items)


def _n(value: float) -> str:
    return number(float(value))
