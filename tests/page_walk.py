"""Walk the dashboard's pages the way a person would: from `/`, following every link.

Used by the tests that judge every page (no template syntax in the HTML, no sideways scroll
at 390 px, the navigation in every layout). The walk visits each kind of page a few times (a
kind is the view plus the names of its query parameters), so a store of hundreds of memories
gives tens of pages, not thousands; downloads, Django's admin and logging out are left out.
"""

import re
from collections import Counter
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urljoin, urlsplit

from django.urls import Resolver404, resolve

# Where the walk starts: the overview, and pages no other page needs to link to.
SEEDS = ("/", "/composites/new/", "/memories/new/")
SKIPPED_PREFIXES = ("/admin/", "/logout/", "/static/", "/login/")
SKIPPED_SUFFIXES = (".csv", ".json", "/download/")
PER_KIND = 2
LIMIT = 160


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.hrefs.append(href)


def links(html: str, base: str) -> list[str]:
    """Return the same-site paths (with their query) that the page links to."""
    parser = _Links()
    parser.feed(html)
    found = []
    for href in parser.hrefs:
        parts = urlsplit(urljoin("http://testserver" + base, href))
        if parts.netloc != "testserver":
            continue
        found.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return found


def kind(path: str) -> str | None:
    """Return the kind of page a path is (view name and query names), or None to skip it."""
    parts = urlsplit(path)
    if parts.path.startswith(SKIPPED_PREFIXES) or parts.path.endswith(SKIPPED_SUFFIXES):
        return None
    try:
        match = resolve(parts.path)
    except Resolver404:
        return None
    names = sorted({name for name, _ in parse_qsl(parts.query)} - {"page", "sort"})
    return f"{match.view_name}?{'&'.join(names)}"


def walk(
    fetch: Callable[[str], tuple[int, str]], *, extra: tuple = (), limit: int = LIMIT
) -> Iterator[tuple]:
    """Yield (path, status, html) for each page reached from the seeds, breadth first."""
    queue = [*SEEDS, *extra]
    seen: set[str] = set()
    per_kind: Counter = Counter()
    while queue and len(seen) < limit:
        path = queue.pop(0)
        page_kind = kind(path)
        if path in seen or page_kind is None or per_kind[page_kind] >= PER_KIND:
            continue
        seen.add(path)
        per_kind[page_kind] += 1
        status, html = fetch(path)
        yield path, status, html
        if status == 200:
            queue += [link for link in links(html, path) if link not in seen]


TEMPLATE_SYNTAX = re.compile(r"\{#|#\}|\{%|%\}|\{\{|\}\}")


def demo_extras() -> tuple[str, ...]:
    """Return pages of the demo a walk may not reach by links: fragmenting, a compare."""
    from django.db.models.functions import Length

    from memadmin.memories.models import Memory

    longest = (
        Memory.objects.filter(status="active").annotate(n=Length("content")).order_by("-n").first()
    )
    edited = Memory.history.filter(history_actor="ana").order_by("history_id").first()
    extras = []
    if longest is not None:
        extras.append(f"/structure/fragment/{longest.pk}/")
    if edited is not None:
        extras.append(f"/history/memories/{edited.id}/")
    return tuple(extras)


def template_syntax(html: str) -> list[str]:
    """Return each piece of template syntax left in the HTML, with a little context."""
    return [html[max(0, m.start() - 40) : m.end() + 40] for m in TEMPLATE_SYNTAX.finditer(html)]


def cell_label_problems(html: str) -> list[str]:
    """Return each column of a `data-table` whose body cells are not named by their header.

    Under 700 px each row of such a table is a card and its header row is hidden: a cell
    names its column only through `data-label` (the stylesheet shows it before the value), so
    every body `td` has one, worded as its column's header (where the header has text). A
    cell with a `colspan` (an empty state spanning the row) may go without.
    """
    from tests.html_tree import find_all, parse, text

    def children(node, *names):
        return [child for child in node.children if getattr(child, "name", None) in names]

    def span(cell):
        return int(cell.attributes.get("colspan") or 1)

    found = []
    for table in find_all(parse(html), "table", class_="data-table"):
        heads = [row for head in children(table, "thead") for row in children(head, "tr")]
        headers = [
            text(cell)
            for cell in (children(heads[-1], "th", "td") if heads else [])
            for _ in range(span(cell))
        ]
        for body in children(table, "tbody"):
            for row in children(body, "tr"):
                place = 0
                for cell in children(row, "th", "td"):
                    header = headers[place] if place < len(headers) else ""
                    label = (cell.attributes.get("data-label") or "").strip()
                    place += span(cell)
                    if cell.name != "td" or "colspan" in cell.attributes:
                        continue
                    if not label:
                        problem = f"column {header!r}: a cell has no data-label"
                    elif header and label != header:
                        problem = f"column {header!r}: a cell is labelled {label!r}"
                    else:
                        continue
                    if problem not in found:
                        found.append(problem)
    return found


def dangling_descriptions(html: str) -> list[str]:
    """Return each `aria-describedby` id on the page that no element of the page carries."""
    from tests.html_tree import find_all, parse

    tree = parse(html)
    ids = {element.attributes.get("id") for element in find_all(tree)}
    return [
        f"<{element.name} name={element.attributes.get('name')!r}> -> #{name}"
        for element in find_all(tree, aria_describedby=True)
        for name in (element.attributes["aria-describedby"] or "").split()
        if name not in ids
    ]
