"""The theme switch in a browser: a choice wins over the system's, paints at once with
JavaScript, comes back with the page without it, and breaks no content-security rule."""

import pytest
from playwright.sync_api import expect

from tests.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DARK_BG = "rgb(18, 22, 30)"  # --bg of the dark palette
LIGHT_BG = "rgb(247, 248, 250)"  # --bg of the light one


def background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def watch(page) -> list[str]:
    """Collect console errors and content-security refusals of the page."""
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', (e) => "
        "console.error('CSP refused ' + e.violatedDirective))"
    )
    return problems


@pytest.fixture
def open_page(browser, live_server, people):
    """Return a signed-in page of a new context (system colour scheme, scripts on or off)."""
    contexts = []

    def make(scheme: str, *, scripts: bool = True, width: int = 1400):
        contexts.append(
            browser.new_context(
                color_scheme=scheme,
                java_script_enabled=scripts,
                viewport={"width": width, "height": 900},
            )
        )
        page = contexts[-1].new_page()
        problems = watch(page)
        return log_in(page, live_server.url, "viewer"), problems

    yield make
    for context in contexts:
        context.close()


def test_choosing_dark_repaints_at_once_and_is_remembered(open_page, live_server):
    """On a light system: Dark paints the page dark without a reload; a new page comes
    dark from its first paint; System follows the system again."""
    page, problems = open_page("light")
    page.goto(f"{live_server.url}/memories/")
    assert background(page) == LIGHT_BG
    expect(page.locator(".theme-switch button")).to_be_hidden()  # no "Set theme" with scripts
    page.evaluate("window.__marker = 'same page'")
    with page.expect_response(lambda r: r.url.endswith("/people/theme/")) as posted:
        page.select_option("#theme-choice", "dark")
    assert posted.value.status == 204
    assert background(page) == DARK_BG
    assert page.evaluate("window.__marker") == "same page"
    page.goto(f"{live_server.url}/structure/", wait_until="commit")
    page.wait_for_selector("body")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.wait_for_load_state()
    assert background(page) == DARK_BG
    with page.expect_response(lambda r: r.url.endswith("/people/theme/")):
        page.select_option("#theme-choice", "system")
    assert background(page) == LIGHT_BG
    page.reload()
    assert background(page) == LIGHT_BG
    assert problems == []


def test_without_javascript_apply_posts_the_choice(open_page, live_server):
    """On a dark system with scripts off, on a phone: Light at the foot of the page, then
    Set theme, brings the page back light."""
    page, problems = open_page("dark", scripts=False, width=390)
    page.goto(f"{live_server.url}/memories/?status=any")
    assert background(page) == DARK_BG
    page.select_option("#theme-choice", "light")
    page.click(".theme-switch button")
    page.wait_for_url("**/memories/?status=any")
    assert background(page) == LIGHT_BG
    assert page.locator("#theme-choice").input_value() == "light"
    assert problems == []
