"""A small horizontal bar chart of counts: one bar per label, each bar a link.

Used by the overview for a project's memories by category. Bars are drawn to the largest
count; every label, count and link is escaped here.
"""

from dataclasses import dataclass

from memadmin.core.diagrams.markup import escape, safe_href, shorten, tag
from memadmin.core.diagrams.render import svg_document

WIDTH, ROW, LABEL_WIDTH, COUNT_WIDTH = 360.0, 20.0, 130.0, 44.0
BAR_HEIGHT = 13.0


@dataclass(frozen=True)
class Bar:
    """One bar: its label, its count and where it leads."""

    label: str
    count: int
    href: str = ""


def counts_svg(bars: list[Bar], *, summary: str) -> str:
    """Return an SVG bar chart of the counts, bars in the order given, scaled to the largest."""
    largest = max((bar.count for bar in bars), default=0) or 1
    room = WIDTH - LABEL_WIDTH - COUNT_WIDTH
    parts = [tag("title", {}, escape(summary))]
    for index, bar in enumerate(bars):
        top = index * ROW + 3
        length = max(room * bar.count / largest, 1.0 if bar.count else 0.0)
        shapes = [
            tag(
                "text",
                {"class": "count-label", "x": 0, "y": top + BAR_HEIGHT - 2, "font-size": 11},
                escape(shorten(bar.label, 20)),
            ),
            tag(
                "rect",
                {
                    "class": f"count-bar seg-{index % 8}",
                    "x": LABEL_WIDTH,
                    "y": top,
                    "width": length,
                    "height": BAR_HEIGHT,
                    "rx": 2,
                    "fill": "#2856c7",
                },
            ),
            tag(
                "text",
                {
                    "class": "count-value",
                    "x": LABEL_WIDTH + length + 4,
                    "y": top + BAR_HEIGHT - 2,
                    "font-size": 11,
                },
                escape(f"{bar.count:,}"),
            ),
        ]
        content = "".join(shapes)
        href = safe_href(bar.href)
        if href:
            content = tag("a", {"href": href, "aria-label": f"{bar.label}: {bar.count:,}"}, content)
        parts.append(tag("g", {}, tag("title", {}, escape(f"{bar.label}: {bar.count:,}")), content))
    height = max(len(bars), 1) * ROW + 4
    return svg_document(parts, width=WIDTH, height=height, classes="counts-chart", label=summary)
