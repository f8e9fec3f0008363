"""Error pages sit in the layout, say what happened and where to go; a 403 names the role."""

import pytest
from django.test import RequestFactory
from pytest_django.asserts import assertInHTML

from memadmin.overview.error_views import server_error
from tests.html_tree import find, find_all, links, text

pytestmark = pytest.mark.django_db


def test_an_unknown_address_gets_a_404_in_the_layout(client_as):
    """The 404 page carries the navigation, names the path and links to the overview."""
    response = client_as("viewer").get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert find(html, "nav", aria_label="Main")
    page = find(html, "section", class_="error-page")
    assertInHTML(
        '<p class="error-message">There is no page at <code>/no/such/page/</code>.</p>', html
    )
    assert ("the overview", "/") in links(page)
    assert "tried" not in html  # Django's list of patterns is not shown


def test_a_missing_memory_says_so(client_as):
    """A 404 raised with a sentence shows that sentence."""
    response = client_as("viewer").get("/memories/999999/")
    assert response.status_code == 404
    assert "No such memory." in response.content.decode()


def test_a_404_asked_for_by_htmx_is_a_fragment_without_the_layout(client_as):
    """A piece of a page gets a piece back: the sentence, no second navigation."""
    response = client_as("viewer").get("/memories/999999/", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 404
    assert not find_all(html, "nav")
    assert text(find(html, "p", class_="error", role="alert")) == "No such memory."


def test_a_403_names_the_role_needed_and_the_role_held(client_as, project):
    """A viewer opening an editor's page is told the page needs the editor role."""
    response = client_as("viewer").get(f"/memories/new/?project={project.pk}")
    html = response.content.decode()
    assert response.status_code == 403
    assert "This needs the editor role." in html
    (held,) = [p for p in find_all(html, "p") if "with the viewer role" in text(p)]
    assert [text(bold) for bold in find_all(held, "strong")] == ["viewer", "viewer"]  # name, role
    assert find(html, "nav", aria_label="Main")


def test_a_500_apologises_in_the_layout(people):
    """The server-error page renders in the layout, with the navigation for the person."""
    request = RequestFactory().get("/broken/")
    request.user = people["viewer"]
    response = server_error(request)
    html = response.content.decode()
    assert response.status_code == 500
    assert "Something broke on our side" in html
    assert find(html, "nav", aria_label="Main")
