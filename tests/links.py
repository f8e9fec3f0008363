"""Follow a page's links as a browser would, and read what the page landed on was asked."""

from tests.html_tree import Node, links


def href(html: str | Node, label: str) -> str:
    """Return the address of the one link of `html` whose text is `label`."""
    found = [address for text, address in links(html) if text == label]
    assert len(found) == 1, f"{len(found)} links {label!r} in {links(html)}"
    return found[0]


def asked(response) -> dict[str, list[str]]:
    """Return the query the response's request was sent with: every value of each key."""
    return dict(response.wsgi_request.GET.lists())
