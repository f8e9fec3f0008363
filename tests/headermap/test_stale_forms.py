"""The stale queue's controls come from its forms: the project filter and each card's note."""

import pytest
from django.core.cache import cache
from django.utils.html import escape
from pytest_django.asserts import assertContains

from memadmin.headermap.stale_selectors import stale_header

from .stale_fixtures import edit_build, make_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def edited(project):
    cache.clear()
    return edit_build(make_release(project))


def test_the_project_filter_holds_the_chosen_project(client_as, edited, project, mc_project):
    """Every project is offered after "every project"; the one asked for is selected."""
    response = client_as("viewer").get("/map/stale/", {"project": project.pk})
    first, second = sorted([project, mc_project], key=lambda p: p.name)
    options = "".join(
        f'<option value="{p.pk}"{" selected" if p == project else ""} title="{p.identity}">'
        f"{escape(p.name)}</option>"
        for p in (first, second)
    )
    assertContains(
        response,
        f'<select name="project" id="stale-project"><option value="">every project</option>'
        f"{options}</select>",
        html=True,
    )
    assertContains(response, '<label for="stale-project">Project</label>', html=True)


def test_a_project_that_is_not_one_shows_every_project(client_as, edited):
    """A bad project id is every project, as no choice is."""
    response = client_as("viewer").get("/map/stale/", {"project": "x"})
    assertContains(response, "1 stale header")
    assertContains(response, '<option value="">every project</option>', html=True)


def test_each_card_has_its_note_box_and_the_version_it_shows(client_as, edited):
    """The note box is sync-reason-<pk>, at most 200 characters; the version rides hidden."""
    header = edited["header"]
    response = client_as("editor").get("/map/stale/")
    version = stale_header(header).version
    assertContains(
        response,
        f'<input type="hidden" name="version" value="{version}" id="sync-version-{header.pk}">',
        html=True,
    )
    assertContains(
        response,
        f'<input type="text" name="reason" maxlength="200" placeholder="optional"'
        f' id="sync-reason-{header.pk}">',
        html=True,
    )
    assertContains(response, f'<label for="sync-reason-{header.pk}">Note</label>', html=True)
