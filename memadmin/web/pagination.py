"""One pager for every paginated page: its links, each address built by `addresses.address`.

A view makes a `Pager` with `pager()` and puts it in the context as `pager`; the page draws
it with `{% include "includes/pagination.html" %}`. Every link is a real link, so paging
works without JavaScript. A pager with a `target` also carries htmx attributes: the link
asks for `fragment_url` (its own address unless told otherwise) and swaps the target.
A section under `hx-boost` needs no target: htmx boosts its plain links.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.core.paginator import Page
from django.http import QueryDict

from memadmin.web.addresses import address

PAGE_FIELD = "page"
GAP = "…"


@dataclass(frozen=True)
class PageLink:
    """One entry of a pager: a link to a page, the current page, or a gap in the numbers."""

    text: str
    url: str = ""
    fragment_url: str = ""
    rel: str = ""
    current: bool = False

    @property
    def is_gap(self) -> bool:
        return not self.url and not self.current


@dataclass(frozen=True)
class Pager:
    """A page's links to its neighbours, labelled for screen readers, and how htmx swaps."""

    label: str
    links: tuple[PageLink, ...]
    target: str = ""
    swap: str = "outerHTML"
    push_url: bool = True


def query_pages(
    query: QueryDict, path: str = "", *, field: str = PAGE_FIELD, anchor: str = ""
) -> Callable[[int], str]:
    """Return the address of page n: `path` with `query` and `field`=n last (then `#anchor`).

    The query keeps every other parameter (filters, sort, page size) as it is.
    """

    def url(number: int) -> str:
        # The page number comes last: taken out of where it was, then set.
        return address(path, query, {field: None}, {field: number}, anchor=anchor)

    return url


def pager(
    page: Page | None,
    url: Callable[[int], str],
    *,
    fragment: Callable[[int], str] | None = None,
    label: str = "Pages",
    previous: str = "Previous",
    next: str = "Next",
    ends: bool = False,
    numbers: bool = False,
    current: str = "",
    target: str = "",
    swap: str = "outerHTML",
    push_url: bool = True,
) -> Pager | None:
    """Return the pager of `page`, or None when there is one page (or none).

    The links: First (with `ends`), `previous`, the current page (`current`, else
    "Page n of m") or, with `numbers`, every page number near it and at the ends, `next`,
    Last (with `ends`). `url(n)` is page n's address; `fragment(n)` what htmx asks for.
    """
    if page is None or not page.has_other_pages():
        return None

    def link(number: int, text: str, rel: str = "") -> PageLink:
        return PageLink(
            text=text, url=url(number), fragment_url=fragment(number) if fragment else "", rel=rel
        )

    last = page.paginator.num_pages
    links = []
    if ends and page.has_previous():
        links.append(link(1, "First"))
    if page.has_previous():
        links.append(link(page.previous_page_number(), previous, "prev"))
    if numbers:
        for number in page.paginator.get_elided_page_range(page.number, on_ends=1):
            if not isinstance(number, int):
                links.append(PageLink(text=GAP))
            elif number == page.number:
                links.append(PageLink(text=str(number), current=True))
            else:
                links.append(link(number, str(number)))
    else:
        links.append(PageLink(text=current or f"Page {page.number} of {last}", current=True))
    if page.has_next():
        links.append(link(page.next_page_number(), next, "next"))
    if ends and page.has_next():
        links.append(link(last, "Last"))
    return Pager(label=label, links=tuple(links), target=target, swap=swap, push_url=push_url)
