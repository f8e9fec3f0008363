"""The budget bar: how an injection budget is spent, category by category."""

from memadmin.core.diagrams.markup import escape, shorten, tag
from memadmin.core.diagrams.render import INK, MUTED, svg_document

WIDTH = 640.0
LEFT = 16.0
BAR_WIDTH = WIDTH - 2 * LEFT
BAR_TOP, BAR_HEIGHT = 28.0, 24.0
LEGEND_TOP, LEGEND_ROW, LEGEND_COLUMNS = 70.0, 18.0, 3
CHARACTER_WIDTH = 6.5  # an average character at the labels' font size
PALETTE = ("#2856c7", "#1f7a3d", "#a05a00", "#7b3fb5", "#0f7c8c", "#b42318", "#c2185b", "#455a64")
OTHER, FREE, LIMIT = "#c9ced8", "#ffffff", "#b42318"


def budget_bar_svg(segments: list[tuple[str, int]], budget: int, *, used: int) -> str:
    """Return a horizontal bar of the budget: each segment's tokens, then the space left.

    Segments are drawn in the order given, each with its own colour class (`seg-0` to
    `seg-7`, then round again). Tokens in `used` that no segment accounts for (the wrapper
    and its tags, say) are drawn as `other`. Past the budget the bar goes on, and a red
    line marks the limit. Every part has a tooltip, and a legend names them all.
    """
    if budget <= 0:
        raise ValueError(f"The budget must be positive, not {budget}.")
    if used < 0 or any(tokens < 0 for _, tokens in segments):
        raise ValueError("Token counts cannot be negative.")
    accounted = sum(tokens for _, tokens in segments)
    parts: list[tuple[str, str, int]] = [  # (classes, label, tokens)
        (f"segment seg-{index % len(PALETTE)}", label, tokens)
        for index, (label, tokens) in enumerate(segments)
    ]
    if used > accounted:
        parts.append(("segment other", "other", used - accounted))
    free = max(budget - max(used, accounted), 0)
    if free:
        parts.append(("free", "free", free))
    scale = BAR_WIDTH / max(budget, used, accounted)

    summary = _summary(segments, budget, used, free)
    shapes = [tag("title", {}, escape(summary)), _headline(budget, used, free)]
    shapes.append(_outline(budget * scale))
    x = LEFT
    for classes, label, tokens in parts:
        width = tokens * scale
        if width > 0:
            shapes.append(_segment(classes, label, tokens, budget, x, width))
        x += width
    if max(used, accounted) > budget:
        shapes.append(_limit(LEFT + budget * scale, budget))
    shapes.append(_legend(parts))
    rows = (len(parts) + LEGEND_COLUMNS - 1) // LEGEND_COLUMNS
    height = LEGEND_TOP + max(rows, 1) * LEGEND_ROW
    return svg_document(shapes, width=WIDTH, height=height, classes="budget-bar", label=summary)


def _summary(segments: list[tuple[str, int]], budget: int, used: int, free: int) -> str:
    text = f"Injection budget: {used:,} of {budget:,} tokens used ({_percent(used, budget)})"
    if segments:
        spent = ", ".join(f"{shorten(label, 40)} {tokens:,}" for label, tokens in segments)
        text += f": {spent}"
    if used > budget:
        return text + f"; {used - budget:,} over budget."
    return text + f"; {free:,} free."


def _headline(budget: int, used: int, free: int) -> str:
    if used > budget:
        text = f"{used:,} of {budget:,} tokens: {used - budget:,} over budget"
    else:
        text = f"{used:,} of {budget:,} tokens used ({_percent(used, budget)}), {free:,} free"
    attributes = {"class": "headline", "x": LEFT, "y": 16, "font-size": 12, "fill": INK}
    return tag("text", attributes, escape(text))


def _outline(width: float) -> str:
    return tag(
        "rect",
        {
            "class": "bar",
            "x": LEFT,
            "y": BAR_TOP,
            "width": width,
            "height": BAR_HEIGHT,
            "fill": FREE,
            "stroke": MUTED,
        },
    )


def _segment(classes: str, label: str, tokens: int, budget: int, x: float, width: float) -> str:
    tooltip = f"{shorten(label, 200)}: {tokens:,} tokens ({_percent(tokens, budget)} of budget)"
    rect = {"class": classes, "x": x, "y": BAR_TOP, "width": width, "height": BAR_HEIGHT}
    rect.update(fill=_colour(classes), stroke=MUTED if classes == "free" else "none")
    children = [tag("title", {}, escape(tooltip)), tag("rect", rect)]
    room = int((width - 8) / CHARACTER_WIDTH)
    if room >= 4:
        text = shorten(f"{label} {tokens:,}", room)
        attributes = {
            "class": "segment-label",
            "x": x + 4,
            "y": BAR_TOP + BAR_HEIGHT / 2,
            "dominant-baseline": "central",
            "font-size": 11,
            "fill": INK if classes in ("free", "segment other") else "#fff",
        }
        children.append(tag("text", attributes, escape(text)))
    return tag("g", {"data-tokens": tokens}, *children)


def _limit(x: float, budget: int) -> str:
    line = {"class": "budget-limit", "x1": x, "x2": x, "y1": BAR_TOP - 4}
    line.update(y2=BAR_TOP + BAR_HEIGHT + 4, stroke=LIMIT, **{"stroke-width": 2})
    title = tag("title", {}, escape(f"budget: {budget:,} tokens"))
    return tag("g", {}, title, tag("line", line))


def _legend(parts: list[tuple[str, str, int]]) -> str:
    items = []
    column_width = BAR_WIDTH / LEGEND_COLUMNS
    for index, (classes, label, tokens) in enumerate(parts):
        row, column = divmod(index, LEGEND_COLUMNS)
        x, y = LEFT + column * column_width, LEGEND_TOP + row * LEGEND_ROW
        swatch = {"class": f"swatch {classes}", "x": x, "y": y - 12, "width": 12, "height": 12}
        swatch.update(fill=_colour(classes), stroke=MUTED)
        text = f"{shorten(label, 22)} {tokens:,}"
        words = {"x": x + 18, "y": y - 2, "font-size": 11, "fill": INK}
        items += [tag("rect", swatch), tag("text", words, escape(text))]
    return tag("g", {"class": "legend"}, *items)


def _colour(classes: str) -> str:
    if classes == "free":
        return FREE
    if classes == "segment other":
        return OTHER
    return PALETTE[int(classes.rsplit("-", 1)[1])]


def _percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%"
