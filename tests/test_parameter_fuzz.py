"""Every page's parameters, sent malformed values: no request may end in a server error.

The walk reuses tests/test_url_permissions.py's discovery of the URL patterns, so a page added
later is covered without editing this file. For each URL it finds the parameters to try:

- the path's own numbers (`<int:pk>`), replaced by numbers too large for any database column;
- the names of the page's own controls: every input, select and textarea of its forms (GET
  forms are sent as queries to their action, POST forms as bodies to theirs), and every query
  name of the page's links;
- the names below that a page reads without showing a control for them (`?ids=` of the merge
  page, `?head=` of the composite page, ...).

Each parameter is then sent each of BAD_VALUES, one at a time, the rest of the form as the page
filled it in, as an admin (who may use every page), as a plain request and (outside the admin)
as an htmx one. A POST runs in a transaction rolled back
afterwards, so the objects the walk needs stay. The answer may refuse (400, 404, 409, a
redirect), never fail (5xx).

The walk first finds every request it will send (reading each page once), then sends them.
It is one test in PARTS parts, each sending every PARTS-th group of that plan, so that
`pytest -n 2` runs the parts side by side; the parts together send the whole plan.
"""

import re
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.template.base import PartialTemplate, Template
from django.test import Client
from django.urls import resolve
from django.urls.exceptions import Resolver404
from django_htmx.middleware import HtmxDetails

from memadmin.core.process_cache import reset_process_caches
from tests.test_url_permissions import build_path, undone, url_patterns, world  # noqa: F401

# The values of issue 12 and more of their kind: Unicode digits that str.isdigit() accepts and
# int() refuses (or accepts, for Arabic-Indic digits), signs, fractions, numbers too large for
# SQLite's and PostgreSQL's integers (64 and 32 bits), a NUL (PostgreSQL refuses it in text),
# empty, very long, and an id list with a bad id in it.
BAD_VALUES = [
    "²",
    "①",
    "٣",
    "-1",
    "0",
    "+1",
    "1.5",
    "abc",
    "99999999999999999999999",
    "9223372036854775808",
    "2147483648",
    "\x00",
    "",
    "9" * 5000,
    "#1, #²",
]
# A textarea holds prose, not a number: it gets the values that break text, not every number.
TEXT_VALUES = ["\x00", "1\x00", "", "9" * 5000, "x" * 5000, "²"]
# Names that carry no input of the person's: the CSRF token, the admin's submit buttons.
NOT_PARAMETERS = {"csrfmiddlewaretoken", "_save", "_continue", "_addanother", "_popup"}
# Path numbers: Django's <int:> takes ASCII digits only, so only the size is left to try.
BAD_PATH_NUMBERS = ["0", "99999999999999999999999", "9223372036854775808"]
# Query names pages read without a control on the page that sends them.
HIDDEN_PARAMETERS = {
    "memories:list": [
        "page",
        "per_page",
        "sort",
        "project",
        "category",
        "status",
        "q",
        "min_length",
    ],
    "memories:create": ["project"],
    "memories:merge": ["ids"],
    "memories:bulk": ["ids", "action", "expected", "composite", "category"],
    "composites:create": ["head"],
    "composites:index": ["page", "project"],
    "headermap:index": ["page", "project", "open", "unreached", "unreached_page"],
    "headermap:details": ["path", "project", "open", "page", "unreached_page"],
    "headermap:unreached": ["project", "unreached", "unreached_page", "open"],
    "headermap:stale": ["project"],
    "headermap:stale_synced": ["version"],
    "ledger:page": ["budget", "page", "counter", "mode"],
    "structure:fragment": [
        "by",
        "by_was",
        "split_at",
        "boundary-TOTAL_FORMS",
        "boundary-0-start",
        "summary",
    ],
    "structure:page": ["page"],
    "audit:index": ["page", "project", "since", "until", "actor", "category"],
    "audit:memory_compare": ["a", "b"],
    "audit:criteria_compare": ["a", "b"],
    "taxonomy:category": ["edit", "field"],
    "taxonomy:clear": ["revision"],
    "taxonomy:keep": ["revision"],
    "composites:delete": ["fingerprint"],
    "admin:memories_memory_changelist": ["p", "o", "project__id__exact", "q"],
}


class _Controls(HTMLParser):
    """Collect a page's forms (method, action, fields with their values) and its links."""

    def __init__(self):
        super().__init__()
        self.forms: list[dict] = []
        self.links: list[str] = []
        self._form: dict | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form":
            self._form = {
                "method": (attributes.get("method") or "get").lower(),
                "action": attributes.get("action") or "",
                "fields": {},
                "texts": set(),
            }
            self.forms.append(self._form)
        elif tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        elif tag in ("input", "select", "textarea", "button") and attributes.get("name"):
            if self._form is None:
                return
            kind = (attributes.get("type") or "").lower()
            if kind in ("checkbox", "radio") and "checked" not in attributes:
                self._form["fields"].setdefault(attributes["name"], None)
                return
            if tag == "textarea":
                self._form["texts"].add(attributes["name"])
            value = attributes.get("value") or ""
            if self._form["fields"].get(attributes["name"]) is None:
                self._form["fields"][attributes["name"]] = value

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


def _targets(path: str, client: Client) -> list[tuple[str, str, dict, set]]:
    """Return (method, path, fields, textareas) for the page and each form and link it shows."""
    response = client.get(path)
    targets = [("get", path, {}, set())]
    if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
        return targets
    controls = _Controls()
    controls.feed(response.content.decode())
    for form in controls.forms:
        action = urlsplit(form["action"]).path or path
        fields = {name: value or "" for name, value in form["fields"].items()}
        if _resolves(action):
            method = "post" if form["method"] == "post" else "get"
            targets.append((method, action, fields, form["texts"]))
    for href in controls.links:
        link = urlsplit(href)
        target = link.path or path
        if link.query and not link.netloc and _resolves(target):
            query = dict(parse_qsl(link.query, keep_blank_values=True))
            targets.append(("get", target, query, set()))
    return targets


def _path_variants(path: str) -> list[str]:
    """Return the path with each of its numbers replaced by each too-large number."""
    variants = []
    for match in re.finditer(r"(?<=/)\d+(?=/|$)", path):
        for number in BAD_PATH_NUMBERS:
            variants.append(path[: match.start()] + number + path[match.end() :])
    return variants


# The walk is cut into PARTS tests, so `pytest -n` runs them side by side. Each part builds
# the same plan (every request the walk sends, found from the world before any is sent) and
# sends every PARTS-th group of it; together the parts send the whole plan. Two, one for each
# of the test command's processes: each part more builds the world and the plan again (2 s).
PARTS = 2


def _plan(world, client: Client) -> list[tuple[str, str, list[dict]]]:  # noqa: F811
    """Return the walk's requests, grouped: (method, path, the data of each request).

    The process's memory of token counts is emptied first: with it, the ledger's pages would
    not write the counts the first test of a process writes, and the plan (the admin's token
    count pages) would depend on which tests ran before.
    """
    reset_process_caches()
    groups = []
    seen: set[tuple[str, str]] = set()
    for patterns, area, entry in url_patterns():
        name = f"{area}:{entry.name}" if area else entry.name
        if name in ("logout", "admin:logout"):
            continue
        path = build_path(patterns, area, entry, world)
        for variant in _path_variants(path):
            groups.append(("get", variant, [{}]))
            groups.append(("post", variant, [{}]))
        for method, target, fields, texts in _targets(path, client):
            target_name = _name_of(target)
            if target_name in ("logout", "admin:logout"):
                continue
            names = {*fields, *HIDDEN_PARAMETERS.get(target_name, ())} - NOT_PARAMETERS
            for parameter in sorted(names):
                # Each view's parameter once: its other pages parse it the same way.
                if (method, target_name, parameter) in seen:
                    continue
                seen.add((method, target_name, parameter))
                values = TEXT_VALUES if parameter in texts else BAD_VALUES
                groups.append((method, target, [{**fields, parameter: value} for value in values]))
        for parameter in HIDDEN_PARAMETERS.get(name, ()):
            if ("post", name, parameter) in seen:
                continue
            seen.add(("post", name, parameter))
            groups.append(("post", path, [{parameter: value} for value in BAD_VALUES]))
    return groups


@pytest.fixture
def htmx_reads(monkeypatch):
    """Return the names of the htmx headers read since the list was last emptied.

    django-htmx reads each of them through `HtmxDetails._get_header_value` (`request.htmx`
    and its attributes, in views and templates alike).
    """
    reads: list[str] = []
    read = HtmxDetails._get_header_value

    def recorded(details, name):
        reads.append(name)
        return read(details, name)

    monkeypatch.setattr(HtmxDetails, "_get_header_value", recorded)
    return reads


@pytest.fixture
def plain_rendering(monkeypatch):
    """Render templates without the test client's record of each one and its context.

    The walk reads status codes only; the record (a signal and a copy of the context for every
    template and include rendered) was a tenth of its time. This is Django's own `_render`.
    """
    for template_class in (Template, PartialTemplate):
        monkeypatch.setattr(
            template_class, "_render", lambda self, context: self.nodelist.render(context)
        )


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("part", range(PARTS))
def test_no_malformed_parameter_gives_a_server_error(
    world,  # noqa: F811
    client_as,
    part,
    htmx_reads,
    plain_rendering,
):
    """Malformed ids and numbers in paths, queries and forms are refused, never a 5xx."""
    client = client_as("admin")
    client.raise_request_exception = False
    failures: set[str] = set()
    planned = sent = same_path = 0

    def send(method: str, path: str, data: dict) -> None:
        nonlocal sent, same_path
        # A dashboard page read by htmx takes another path through its view (a fragment),
        # if the view asks: a request whose view never read an htmx header would take the same
        # path with them, so it is not sent again.
        ways = [{}] if path.startswith("/admin/") else [{}, {"HX-Request": "true"}]
        for headers in ways:
            if headers and not htmx_reads:
                same_path += 1
                continue
            htmx_reads.clear()
            sent += 1
            if method == "post":
                response = undone(lambda: client.post(path, data, headers=headers))  # noqa: B023
            else:
                response = client.get(path, data, headers=headers)
            if response.status_code >= 500:
                shown = {k: (v if len(v) < 20 else v[:8] + "…") for k, v in data.items()}
                how = " (htmx)" if headers else ""
                failures.add(f"{method.upper()} {path}{how} {shown}: {response.status_code}")
        if "_auth_user_id" not in client.session:
            client.force_login(world["people"]["admin"])  # a walked logout ended the session

    groups = _plan(world, client)
    for index, (method, path, requests) in enumerate(groups):
        planned += len(requests) * (1 if path.startswith("/admin/") else 2)
        if index % PARTS != part:
            continue
        for data in requests:
            send(method, path, data)

    assert planned > 2000, f"the walk plans only {planned} requests"
    assert sent + same_path > planned // (2 * PARTS), f"part {part} sent {sent} of {planned}"
    assert sent > same_path, f"part {part} sent {sent}, {same_path} left out as the same path"
    assert not failures, f"{len(failures)} server errors:\n" + "\n".join(sorted(failures))


def _name_of(path: str) -> str:
    match = resolve(path)
    return match.view_name
