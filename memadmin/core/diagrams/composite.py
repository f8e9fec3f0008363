"""Inline SVG pictures of composites: one layout per kind, full size or thumbnail."""

from collections.abc import Callable
from dataclasses import replace
from typing import Literal, get_args

from memadmin.core.diagrams import alternatives, cause, sequence, theme
from memadmin.core.diagrams.markup import shorten
from memadmin.core.diagrams.render import Size, render
from memadmin.core.diagrams.scene import Node, Scene, distinct_parts

CompositeKind = Literal["sequence", "theme", "cause", "alternatives"]
SUMMARY_LABEL_CHARACTERS = 60

_LAYOUTS: dict[str, Callable[[Node, list[Node], int | None], Scene]] = {
    "sequence": sequence.layout,
    "theme": theme.layout,
    "cause": cause.layout,
    "alternatives": alternatives.layout,
}


def composite_svg(
    kind: CompositeKind,
    head: Node,
    members: list[Node],
    *,
    cursor: int | None = None,
    size: Size = "full",
) -> str:
    """Return an inline SVG picture of a composite.

    `cursor` is the 0-based position of the member at the read position; that member is
    marked (and named in the legend and the summary). A cursor outside the members marks
    nothing. The full size is 640 wide with labels and a legend; the thumbnail is 160 by
    100 with tooltips only.
    """
    if kind not in _LAYOUTS:
        raise ValueError(f"Unknown composite kind {kind!r}: use {', '.join(_LAYOUTS)}.")
    if size not in get_args(Size):
        raise ValueError(f"Unknown diagram size {size!r}: use full or thumb.")
    if cursor is not None and not 0 <= cursor < len(members):
        cursor = None
    shorts = distinct_parts([member.label for member in members])
    shown = [replace(m, short=s) for m, s in zip(members, shorts, strict=True)]
    scene = _LAYOUTS[kind](head, shown, cursor)
    summary = _summary(kind, head, members, cursor)
    return render(scene, size=size, classes=f"composite {kind}", summary=summary)


def _summary(kind: str, head: Node, members: list[Node], cursor: int | None) -> str:
    """Return one sentence saying what the picture shows, for screen readers and tooltips."""
    name = _name(head)
    count = len(members)
    plural = "" if count == 1 else "s"
    if kind == "sequence":
        text = f"Sequence headed by {name}, then {count} step{plural} in order."
    elif kind == "theme":
        text = f"Theme around {name}, with {count} member{plural}."
    elif kind == "cause":
        text = f"{count} cause{plural} leading to {name}."
    else:
        text = f"Alternatives for {name}: choose one of {count}."
    if cursor is not None:
        text += f" Read position: {'step' if kind == 'sequence' else 'member'} {cursor + 1}"
        text += f", {_name(members[cursor])}."
    return text


def _name(node: Node) -> str:
    label = shorten(node.label, SUMMARY_LABEL_CHARACTERS)
    return f"#{node.id} \u201c{label}\u201d" if label else f"#{node.id}"
