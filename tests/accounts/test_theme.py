"""The theme switch: system, light or dark, remembered for this browser in a cookie."""

import pytest
from django.contrib.messages import get_messages

from memadmin.accounts.themes import COOKIE
from tests.html_tree import attribute, find, find_all, selected, submitted

pytestmark = pytest.mark.django_db


def html_theme(response) -> str:
    return attribute(find(response.content.decode(), "html"), "data-theme")


def test_pages_follow_the_system_until_a_theme_is_chosen(client_as):
    """No choice yet: data-theme="system", and the switch shows System chosen."""
    response = client_as("viewer").get("/memories/")
    assert html_theme(response) == "system"
    switch = find(response.content.decode(), "form", class_="theme-switch")
    assert selected(find(switch, "select", name="theme")) == ["system"]
    assert [attribute(o, "value") for o in find_all(switch, "option")] == [
        "system",
        "light",
        "dark",
    ]


def test_choosing_dark_without_javascript_comes_back_dark(client_as):
    """The plain form posts the choice; the page it was on comes back in that theme."""
    client = client_as("viewer")
    page = client.get("/memories/?status=any").content.decode()
    form = dict(submitted(find(page, "form", class_="theme-switch")))
    assert form["next"] == "/memories/?status=any"
    response = client.post("/people/theme/", {**form, "theme": "dark"})
    assert (response.status_code, response.url) == (302, "/memories/?status=any")
    cookie = response.cookies[COOKIE]
    assert cookie.value == "dark" and cookie["httponly"] and cookie["samesite"] == "Lax"
    after = client.get(response.url)
    assert html_theme(after) == "dark"
    assert selected(find(after.content.decode(), "select", name="theme")) == ["dark"]


def test_htmx_gets_nothing_to_swap(client_as):
    """theme.js has repainted the page: htmx's post is only remembered (204)."""
    client = client_as("viewer")
    response = client.post("/people/theme/", {"theme": "light"}, headers={"HX-Request": "true"})
    assert response.status_code == 204
    assert response.cookies[COOKIE].value == "light"
    assert html_theme(client.get("/")) == "light"


@pytest.mark.parametrize("bad", ["", "purple", "dark;", "x" * 3000])
def test_an_unknown_theme_changes_nothing_and_says_so(client_as, bad):
    client = client_as("viewer")
    client.post("/people/theme/", {"theme": "dark"})
    response = client.post("/people/theme/", {"theme": bad, "next": "/memories/"})
    assert (response.status_code, response.url) == (302, "/memories/")
    assert COOKIE not in response.cookies
    said = [m.message for m in get_messages(response.wsgi_request)]
    assert said == [
        "This field is required." if not bad else "Choose a theme: system, light or dark."
    ]
    assert html_theme(client.get("/")) == "dark"
    htmx = client.post("/people/theme/", {"theme": bad}, headers={"HX-Request": "true"})
    assert htmx.status_code == 400


def test_a_next_off_this_site_goes_home(client_as):
    response = client_as("viewer").post(
        "/people/theme/", {"theme": "dark", "next": "https://evil.example/"}
    )
    assert response.url == "/"


def test_an_unknown_cookie_means_the_system_theme(client_as):
    client = client_as("viewer")
    client.cookies[COOKIE] = '"><script>'
    assert html_theme(client.get("/")) == "system"


def test_a_get_is_refused_and_anonymous_people_are_sent_to_log_in(client, client_as):
    assert client.post("/people/theme/", {"theme": "dark"}).status_code in (302, 403)
    assert COOKIE not in client.post("/people/theme/", {"theme": "dark"}).cookies
    assert client_as("viewer").get("/people/theme/").status_code == 405
