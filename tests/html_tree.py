"""Read a page as an HTML tree: its elements by tag and attributes, their text and links.

Built on the standard library's parser, so attribute values and text come unescaped
(`&amp;` reads `&`), and text keeps the spaces a reader sees between inline elements.
Attribute names are given as keywords with `_` for `-` (`hx_get="..."` matches `hx-get`, and
`for_` matches `for`); `class_` matches classes among the element's (`class_="badge moved"`: both); `True` matches an attribute that is present,
whatever its value (a bare attribute such as `open` has the value None).
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    ]
)  # elements with no end tag


@dataclass(eq=False)
class Node:
    """One element: its tag, its attributes, and its children (elements and text)."""

    name: str
    attributes: dict[str, str | None] = field(default_factory=dict)
    children: list["Node | str"] = field(default_factory=list)

    def elements(self) -> Iterator["Node"]:
        """Yield every element below this one, in document order."""
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.elements()


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag):
        # An end tag closes its element and any left open inside it (an unclosed <li>).
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].name == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    """Return the tree of `html`: a nameless root holding its top elements."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def _matches(element: Node, tag: str | None, wanted: dict) -> bool:
    if tag is not None and element.name != tag:
        return False
    have = element.attributes
    for name, value in wanted.items():
        if name == "class_":
            if not set(value.split()) <= set((have.get("class") or "").split()):
                return False
            continue
        name = name.rstrip("_").replace("_", "-")
        if name not in have or (value is not True and have[name] != value):
            return False
    return True


def find_all(html: str | Node, tag: str | None = None, **attributes) -> list[Node]:
    """Return every element of `html` (a page or an element) with `tag` and `attributes`."""
    root = parse(html) if isinstance(html, str) else html
    candidates = [root, *root.elements()] if root.name else root.elements()
    return [element for element in candidates if _matches(element, tag, attributes)]


def find(html: str | Node, tag: str | None = None, **attributes) -> Node:
    """Return the one element with `tag` and `attributes`; fail if there are none or several."""
    found = find_all(html, tag, **attributes)
    assert len(found) == 1, f"{len(found)} <{tag or '*'} {attributes}> elements, not one"
    return found[0]


def top(html: str) -> list[Node]:
    """Return the top elements of `html` (a fragment's outermost elements)."""
    return [child for child in parse(html).children if isinstance(child, Node)]


def attribute(element: Node, name: str) -> str | None:
    """Return the value of the element's attribute `name` (None when absent or bare)."""
    return element.attributes.get(name)


def text(element: Node) -> str:
    """Return the element's text, its children's included, with whitespace collapsed."""
    parts = []

    def walk(node):
        for child in node.children:
            if isinstance(child, Node):
                walk(child)
            else:
                parts.append(child)

    walk(element)
    return " ".join("".join(parts).split())


def links(html: str | Node) -> list[tuple[str, str]]:
    """Return the (text, href) of every link of `html`, in document order."""
    return [(text(a), attribute(a, "href")) for a in find_all(html, "a", href=True)]


def definitions(element: Node) -> dict[str, Node]:
    """Return the terms of a definition list (their text), each with its description (<dd>)."""
    described, term = {}, None
    for child in element.children:
        if isinstance(child, Node) and child.name == "dt":
            term = text(child)
        elif isinstance(child, Node) and child.name == "dd" and term is not None:
            described[term] = child
    return described


def selected(select: Node) -> list[str]:
    """Return the values of a <select>'s selected options."""
    return [attribute(option, "value") for option in find_all(select, "option", selected=True)]


CHECKED = ("checkbox", "radio")  # inputs sent only when checked


def submitted(form: Node) -> list[tuple[str, str]]:
    """Return the (name, value) pairs a browser sends for `form` as it stands, buttons aside.

    Inputs count (a checkbox or radio only when checked), each select's selected options (or its
    first, a single select with none selected), and textareas. Disabled controls do not.
    """
    pairs = []
    for element in form.elements():
        name = attribute(element, "name")
        if name is None or "disabled" in element.attributes:
            continue
        if element.name == "input":
            kind = attribute(element, "type") or "text"
            if kind in ("submit", "button", "reset", "image", "file"):
                continue
            if kind in CHECKED and "checked" not in element.attributes:
                continue
            value = attribute(element, "value")
            pairs.append((name, value if value is not None else "on" if kind in CHECKED else ""))
        elif element.name == "select":
            options = find_all(element, "option")
            chosen = find_all(element, "option", selected=True)
            if not chosen and "multiple" not in element.attributes:
                chosen = options[:1]
            pairs += [(name, o.attributes.get("value", text(o))) for o in chosen]
        elif element.name == "textarea":  # a browser drops the newline that opens the text
            typed = "".join(c for c in element.children if isinstance(c, str))
            pairs.append((name, typed.removeprefix("\n")))
    return pairs


def posted(form: Node) -> dict:
    """Return `submitted(form)` as the test client takes it: a name sent twice, as a list."""
    data: dict = {}
    for name, value in submitted(form):
        if name in data:
            earlier = data[name] if isinstance(data[name], list) else [data[name]]
            data[name] = [*earlier, value]
        else:
            data[name] = value
    return data


def field_error(html: str, auto_id: str) -> str:
    """Return the error shown for the field `auto_id`; fail unless it is wired to its control.

    Exactly one element has the id `<auto_id>_error`, with text; the control (an input,
    select or textarea with id `auto_id`) is `aria-invalid` and names that id in its
    `aria-describedby`; a group of boxes or buttons (a div with that id) is named by the
    fieldset around it instead.
    """
    tree = parse(html)
    error_id = f"{auto_id}_error"
    message = text(find(tree, id=error_id))
    assert message, f"#{error_id} is empty"
    describing = [
        element
        for element in find_all(tree, aria_describedby=True)
        if error_id in (element.attributes["aria-describedby"] or "").split()
    ]
    control = find(tree, id=auto_id)
    if control.name in {"input", "select", "textarea"}:
        assert control in describing, f"#{auto_id} does not name #{error_id}"
        assert control.attributes.get("aria-invalid") == "true", f"#{auto_id} is not aria-invalid"
    else:
        assert [element.name for element in describing] == ["fieldset"], describing
    return message
