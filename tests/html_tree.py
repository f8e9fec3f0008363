"""Read a page as an HTML tree: its elements by tag and attributes, their text and links.

Built on Django's test parser (the one `assertContains(..., html=True)` uses), so attribute
values come unescaped (`&amp;` reads `&`) and whitespace is normalised. Attribute names are
given as keywords with `_` for `-` (`hx_get="..."` matches `hx-get`); `class_` matches one
class among the element's; `True` matches an attribute that is present, whatever its value.
"""

from collections.abc import Iterator

from django.test.html import Element, parse_html


def _elements(node) -> Iterator[Element]:
    for child in getattr(node, "children", ()):
        if isinstance(child, Element):
            yield child
            yield from _elements(child)


def _matches(element: Element, tag: str | None, wanted: dict) -> bool:
    if tag is not None and element.name != tag:
        return False
    have = dict(element.attributes)
    for name, value in wanted.items():
        if name == "class_":
            if value not in (have.get("class") or "").split():
                return False
            continue
        name = name.replace("_", "-")
        if name not in have or (value is not True and have[name] != value):
            return False
    return True


def find_all(html: str | Element, tag: str | None = None, **attributes) -> list[Element]:
    """Return every element of `html` (a page or an element) with `tag` and `attributes`."""
    root = parse_html(html) if isinstance(html, str) else html
    candidates = [root, *_elements(root)] if root.name else _elements(root)
    return [element for element in candidates if _matches(element, tag, attributes)]


def find(html: str | Element, tag: str | None = None, **attributes) -> Element:
    """Return the one element with `tag` and `attributes`; fail if there are none or several."""
    found = find_all(html, tag, **attributes)
    assert len(found) == 1, f"{len(found)} <{tag or '*'} {attributes}> elements, not one"
    return found[0]


def attribute(element: Element, name: str) -> str | None:
    """Return the value of the element's attribute `name` (None when absent or bare)."""
    return dict(element.attributes).get(name)


def text(element: Element) -> str:
    """Return the element's text, its children's included, with whitespace collapsed."""
    parts = []

    def walk(node):
        for child in node.children:
            if isinstance(child, Element):
                walk(child)
            else:
                parts.append(child)

    walk(element)
    return " ".join(" ".join(parts).split())


def links(html: str | Element) -> list[tuple[str, str]]:
    """Return the (text, href) of every link of `html`, in document order."""
    return [(text(a), attribute(a, "href")) for a in find_all(html, "a", href=True)]
