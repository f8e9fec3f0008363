"""The fragment page's split mode is SplitForm's `by`: a select on the mode, "auto" when unknown."""

import pytest
from pytest_django.asserts import assertContains

from memadmin.structure.fragment_forms import SPLIT_MODES

from .test_fragment_views import SOP, url

pytestmark = pytest.mark.django_db


def select_on(mode: str) -> str:
    options = "".join(
        f'<option value="{value}"{" selected" if value == mode else ""}>{label}</option>'
        for value, label in SPLIT_MODES
    )
    return f'<select name="by" id="split-by" aria-describedby="id_by_helptext">{options}</select>'


@pytest.mark.parametrize(("asked", "shown"), [("", "auto"), ("paragraphs", "paragraphs"),
                                              ("nonsense", "auto")])  # fmt: skip
def test_the_select_holds_the_mode_the_split_was_proposed_for(client_as, remember, asked, shown):
    """The mode asked for is selected; none, or one that is not a mode, is "auto"."""
    memory = remember(SOP)
    response = client_as("editor").get(url(memory), {"by": asked} if asked else {})
    assertContains(response, select_on(shown), html=True)
    assertContains(response, '<label for="split-by">Propose fragments</label>', html=True)
    assertContains(response, f'<input type="hidden" name="by_was" value="{shown}">', html=True)
