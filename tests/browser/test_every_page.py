"""Every page of the demo in a browser, walked by links as each role.

As the viewer, the editor and the curator at 1,400 px, and as the admin at 390 px (a phone),
no page logs a console error or has a piece refused by the content security policy: a page
that does (htmx refusing an attribute it cannot parse, a script failing, an inline style)
works less than it looks. No link ends in a 403 for the role shown it: that would be an action
offered to someone who may not take it. At 390 px no page is wider than the screen or shows
template syntax. The walk (`tests/page_walk.py`) starts at the overview and follows every
link, each kind of page a few times. The four walks share one demo: they only read it.
"""

import pytest
from django.core.management import call_command

from tests.conftest import log_in
from tests.page_walk import LIMIT, SEEDS, demo_extras, template_syntax, walk

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDE = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
# Pages a wide walk visits at most: each kind of page once or twice reaches them all.
WIDE_LIMIT = 70
# (role, screen, pages at most). The admin walks on a phone, every page the walk reaches: the
# widest choice of pages on the narrowest screen.
WALKS = (
    ("viewer", WIDE, WIDE_LIMIT),
    ("editor", WIDE, WIDE_LIMIT),
    ("curator", WIDE, WIDE_LIMIT),
    ("admin", PHONE, LIMIT),
)


@pytest.fixture
def demo(people):
    call_command("demo", "--no-people")


def problems_on_every_page(page, live_server, *, limit: int) -> tuple[int, list[str]]:
    """Walk every page; return how many were visited and what was wrong on them.

    On a phone, the walk also checks the width and the template syntax of every page.
    """
    problems: list[str] = []
    current = {"path": ""}
    on_a_phone = page.viewport_size["width"] == PHONE["width"]

    def on_console(message):
        if message.type == "error":
            problems.append(f"{current['path']}: console: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(f"{current['path']}: script: {error}"))
    # A content-security refusal is also an event on the page: note those the console misses.
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', (e) => "
        "console.error('CSP refused ' + e.violatedDirective + ' ' + (e.blockedURI || 'inline')))"
    )

    def fetch(path):
        current["path"] = path
        response = page.goto(live_server.url + path)
        return response.status, page.content()

    walked = 0
    extras = demo_extras()  # read before the walk: Playwright's loop refuses database work
    # The walk's starting pages are visited whether or not the role is shown a link to them.
    unlinked = {*SEEDS, *extras}
    for path, status, html in walk(fetch, extra=extras, limit=limit):
        walked += 1
        if status == 403 and path in unlinked:
            problems[:] = [p for p in problems if not p.startswith(f"{path}: console: Failed")]
        elif status >= 400:
            problems.append(f"{path}: status {status}")
        if on_a_phone:
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > page.evaluate("innerWidth"):
                problems.append(f"{path}: {width} px wide at {PHONE['width']} px")
            problems += [f"{path}: {piece!r}" for piece in template_syntax(html)]
    return walked, problems


def test_no_page_logs_an_error_is_refused_a_piece_or_scrolls_sideways_on_a_phone(
    browser, live_server, demo
):
    """As each role, every page reached by links loads with no console error, no content
    security refusal and no 403 behind a link the role was shown; on a phone (the admin's
    walk, every page) none is wider than the screen or shows template syntax."""
    failures: list[str] = []
    for role, viewport, limit in WALKS:
        context = browser.new_context(viewport=viewport)
        try:
            page = log_in(context.new_page(), live_server.url, role)
            walked, problems = problems_on_every_page(page, live_server, limit=limit)
        finally:
            context.close()
        if walked <= 30:
            failures.append(f"{role}: only {walked} pages were reached")
        failures += [f"{role}: {problem}" for problem in problems]
    assert not failures, "\n".join(failures)
