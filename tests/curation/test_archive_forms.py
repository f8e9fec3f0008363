"""The near-duplicates page's archive forms are rendered from ArchiveForm, one per direction."""

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from .test_views import themed  # noqa: F401 (the fixture: a pair of near-duplicates)

pytestmark = pytest.mark.django_db


def test_each_direction_carries_what_it_keeps_and_the_version_shown(themed, client_as):  # noqa: F811
    """Archive #second keeping #first, and the reverse: each with the archived one's version."""
    project, pair, _, _ = themed
    response = client_as("editor").get(reverse("curation:duplicates", args=[project.pk]))
    for archived, kept in ((pair[1], pair[0]), (pair[0], pair[1])):
        assertContains(response, reverse("curation:archive", args=[archived.pk]))
        assertContains(
            response,
            f'<input type="hidden" name="keep" value="{kept.pk}">'
            f'<input type="hidden" name="expected_updated_at" value="{archived.updated_at}">',
            html=True,
        )
