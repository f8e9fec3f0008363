"""The new-memory page switches project with a select rendered from ProjectChoiceForm."""

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from tests.html_tree import find_all

pytestmark = pytest.mark.django_db


def test_the_project_select_offers_every_project_with_this_one_chosen(
    client_as, project, mc_project
):
    """Ops and Plugin, by name, each identity on hover; the project the memory goes into is
    selected; no empty choice."""
    response = client_as("editor").get(reverse("memories:create"), {"project": mc_project.pk})
    assertContains(
        response,
        f'<select name="project" id="pick-project">'
        f'<option value="{project.pk}" title="{project.identity}">Ops</option>'
        f'<option value="{mc_project.pk}" selected title="{mc_project.identity}">Plugin</option>'
        "</select>",
        html=True,
    )
    assertContains(response, '<label for="pick-project">Project</label>', html=True)


def test_with_one_project_there_is_nothing_to_switch(client_as, project):
    """A single project is no choice: no select."""
    response = client_as("editor").get(reverse("memories:create"))
    assert response.status_code == 200
    page = response.content.decode()
    assert (
        find_all(page, "select", name="project") == [] and find_all(page, id="pick-project") == []
    )
