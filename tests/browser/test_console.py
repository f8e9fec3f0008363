"""Every page, as every role, in a browser: no console error and no content-security refusal.

A page that logs an error (htmx refusing an attribute it cannot parse, a script failing) or
that the content security policy blocks a piece of (an inline style, a script) works less
than it looks; a link that ends in a 403 for the role that sees it is an action offered to
someone who may not take it. The walk (`tests/page_walk.py`) starts at the overview and
follows every link, each kind of page a few times.
"""

import pytest
from django.core.management import call_command

from tests.conftest import log_in
from tests.page_walk import SEEDS, demo_extras, walk

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Pages a role's walk visits at most: each kind of page once or twice reaches them all.
LIMIT = 70


@pytest.fixture
def demo(people):
    call_command("demo", "--no-people")


def problems_on_every_page(page, live_server) -> tuple[int, list[str]]:
    """Walk every page; return how many were visited and every console error or refusal."""
    problems: list[str] = []
    current = {"path": ""}

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
    for path, status, _html in walk(fetch, extra=extras, limit=LIMIT):
        walked += 1
        if status == 403 and path in unlinked:
            problems[:] = [p for p in problems if not p.startswith(f"{path}: console: Failed")]
        elif status >= 400:
            problems.append(f"{path}: status {status}")
    return walked, problems


# The admin's walk is the phone-layout test's (`test_layout.py`), which checks the console too.
ROLES = ("viewer", "editor", "curator")


def test_no_page_logs_an_error_or_is_refused_a_piece(browser, live_server, demo):
    """As each role, every page reached by links loads with no console error, no content
    security refusal and no 403 behind a link the role was shown.

    One demo for the three walks (each role in a browser context of its own): they only read.
    """
    failures: list[str] = []
    for role in ROLES:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        try:
            page = log_in(context.new_page(), live_server.url, role)
            walked, problems = problems_on_every_page(page, live_server)
        finally:
            context.close()
        if walked <= 30:
            failures.append(f"{role}: only {walked} pages were reached")
        failures += [f"{role}: {problem}" for problem in problems]
    assert not failures, "\n".join(failures)
