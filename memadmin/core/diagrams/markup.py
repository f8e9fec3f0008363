"""Safe SVG text: escaping, label shortening, number formatting and link checks."""

import html
import re
from collections.abc import Mapping

ELLIPSIS = "\u2026"

# Characters XML 1.0 does not allow, even escaped: C0 controls other than tab, newline and
# carriage return, lone surrogates, and the two non-characters U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_SAFE_SCHEMES = {"http", "https", "mailto"}


class Svg(str):
    """A finished SVG document, every text in it escaped here: templates insert it as it is.

    The one trusted path for pictures: Django (like every template engine that follows the
    `__html__` convention) inserts it without escaping it again, so no template needs `|safe`.
    Only `render.svg_document` makes one.
    """

    __slots__ = ()

    def __html__(self) -> str:
        return str(self)


def plain(text: str) -> str:
    """Return the text on one line: characters XML refuses dropped, whitespace folded."""
    return " ".join(_NOT_XML.sub(" ", text).split())


def shorten(text: str, limit: int) -> str:
    """Return the text on one line, cut to at most `limit` characters with an ellipsis."""
    text = plain(text)
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS


def escape(text: str) -> str:
    """Return the text escaped for XML content and attribute values alike."""
    return html.escape(_NOT_XML.sub("", text), quote=True)


def number(value: float) -> str:
    """Return a coordinate with at most one decimal, written the same way every time."""
    rounded = round(value, 1)
    if rounded == int(rounded):
        return str(int(rounded))
    return f"{rounded:.1f}"


def safe_href(href: str | None) -> str | None:
    """Return the link if it is relative or http(s)/mailto, else None (no `javascript:`)."""
    if not href:
        return None
    scheme = _SCHEME.match(href.strip())
    if scheme and scheme.group(1).lower() not in _SAFE_SCHEMES:
        return None
    return href


def tag(name: str, attributes: Mapping[str, object], *children: str) -> str:
    """Return one element; attribute values are escaped, children are markup already.

    Attributes whose value is None are left out; numbers go through `number`.
    """
    parts = [name]
    for key, value in attributes.items():
        if value is None:
            continue
        text = number(value) if isinstance(value, float) else str(value)
        parts.append(f'{key}="{escape(text)}"')
    opening = " ".join(parts)
    if not children:
        return f"<{opening}/>"
    return f"<{opening}>{''.join(children)}</{name}>"
