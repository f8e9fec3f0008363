"""Addresses with a query: every link or redirect built in Python with parameters comes here.

`address(path, query, key=value)` follows the rules of Django's `{% querystring %}` tag,
which the templates use: the mappings given (a QueryDict keeps every value of a key), then
the keyword arguments, later ones winning; None leaves a key out; a list or tuple repeats
it. Values are encoded as a form sends them (`urlencode`), so a value holding `&`, `#`, `+`,
spaces or any non-ASCII character comes back as it was.

A template given no mapping by its view reads the page's own query (`{% querystring %}`
starts from `request.GET`), so a link to another page is given its mapping.
"""

from collections.abc import Iterable, Mapping
from urllib.parse import urlencode

from django.http import QueryDict

type QueryValue = str | int | Iterable[str | int | None] | None


def query_string(*queries: Mapping[str, QueryValue], **params: QueryValue) -> str:
    """Return the encoded query of `queries` and then `params`, without "?" ("" when empty)."""
    merged: dict[str, list[str]] = {}
    for query in (*queries, params):
        for key, value in query.lists() if isinstance(query, QueryDict) else query.items():
            if value is None:
                merged.pop(key, None)
            elif isinstance(value, Iterable) and not isinstance(value, str):
                merged[key] = [str(one) for one in value if one is not None]  # [] sends none
            else:
                merged[key] = [str(value)]
    return urlencode([(key, value) for key, values in merged.items() for value in values])


def address(
    path: str, *queries: Mapping[str, QueryValue], anchor: str = "", **params: QueryValue
) -> str:
    """Return `path` with the query of `queries` and `params` (if any), then `#anchor`.

    `anchor` is an element's id on the page (the caller's, made of safe characters).
    """
    query = query_string(*queries, **params)
    return f"{path}{'?' if query else ''}{query}{'#' if anchor else ''}{anchor}"
