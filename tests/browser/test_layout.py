"""The layout in a browser: the navigation folds on a phone, two themes, error pages.

That every page fits a phone is checked on the walk of every page (`test_every_page.py`)."""

import pytest

from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECTIONS = [
    "Overview",
    "Memories",
    "Criteria",
    "Composites",
    "Map",
    "Ledger",
    "History",
    "Import/export",
    "People",
    "Admin",
]


@pytest.mark.parametrize("javascript", [True, False])
def test_the_navigation_reaches_every_section_on_a_phone(browser, live_server, people, javascript):
    """At 390 px the menu is folded; opened, every section's link is on screen and works."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, java_script_enabled=javascript
    )
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "correct horse battery staple")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")  # the overview
    nav = page.get_by_role("navigation", name="Main")
    assert not nav.is_visible()  # folded behind the menu button
    for name in SECTIONS:
        page.locator(".nav-menu > summary").click()
        link = nav.get_by_role("link", name=name, exact=True)
        box = link.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, name
        link.click()
        page.wait_for_load_state()
        assert page.locator("h1").count() >= 1, name
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
    context.close()


def test_a_wide_screen_shows_the_navigation_and_a_wide_column(logged_in_page, live_server):
    """At 1920 px the navigation shows without a menu button and the content is wider than 1,200 px."""
    page = logged_in_page("admin")
    page.set_viewport_size({"width": 1920, "height": 1000})
    page.goto(f"{live_server.url}/memories/")
    assert page.get_by_role("navigation", name="Main").is_visible()
    assert not page.locator(".nav-menu > summary").is_visible()
    assert page.locator("main").bounding_box()["width"] > 1500


@pytest.mark.parametrize(("scheme", "dark"), [("light", False), ("dark", True)])
def test_the_theme_follows_the_system_setting(browser, live_server, scheme, dark):
    """The page is dark when the system prefers dark, light otherwise."""
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    background = page.evaluate(
        "getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3).map(Number)"
    )
    assert (sum(background) < 200) is dark, background
    context.close()


@pytest.mark.parametrize("path", ["/no/such/page/", "/memories/999999/", "/people/"])
def test_error_pages_carry_the_navigation(logged_in_page, live_server, path):
    """A 404 or 403 page has the menu, says what happened and links to the overview."""
    page = logged_in_page("editor")
    page.set_viewport_size({"width": 390, "height": 844})
    response = page.goto(live_server.url + path)
    assert response.status in (403, 404)
    page.locator(".nav-menu > summary").click()
    assert (
        page.get_by_role("navigation", name="Main").get_by_role("link", name="Ledger").is_visible()
    )
    assert page.locator(".error-message").inner_text()
    if response.status == 403:
        assert "admin role" in page.locator(".error-message").inner_text()
    assert page.locator("main a[href='/']").count() >= 1


def test_a_choice_among_radio_buttons_reads_as_text_under_a_bold_label(
    logged_in_page, live_server, project
):
    """On curation's grouping page the head's choices are plain text; its legend and the
    other fields' labels are bold."""
    ids = [
        memory_create(
            project=project, category="OPS_RULES", content=f"Deploy rule {n}.", actor="agent"
        ).pk
        for n in range(2)
    ]
    page = logged_in_page("curator")
    page.goto(f"{live_server.url}/curation/{project.pk}/group/?ids={ids[0]}&ids={ids[1]}")

    def weight(locator) -> int:
        return int(locator.evaluate("(element) => getComputedStyle(element).fontWeight"))

    assert weight(page.locator("label:has(> input[type=radio])").first) == 400
    assert weight(page.locator("fieldset.choices > legend")) == 600
    assert weight(page.locator("label[for=id_title]")) == 600
