"""`partial_or_page`: the fragment for htmx swaps, the whole page otherwise."""

import pytest
from django.test import RequestFactory
from django_htmx.middleware import HtmxDetails

from memadmin.memories.services import memory_create
from memadmin.web.htmx_request import partial_or_page
from tests.html_tree import attribute, find, find_all, top


def request(**headers):
    made = RequestFactory().get("/", headers=headers)
    made.htmx = HtmxDetails(made)
    return made


def test_an_htmx_swap_gets_the_fragment():
    """An htmx request gets `template#partial`."""
    assert partial_or_page(request(HX_Request="true"), "a.html", "part") == "a.html#part"


def test_a_plain_request_and_a_history_restore_get_the_whole_page():
    """Without htmx, or when htmx restores a page from its history, the whole page."""
    assert partial_or_page(request(), "a.html", "part") == "a.html"
    restore = request(HX_Request="true", HX_History_Restore_Request="true")
    assert partial_or_page(restore, "a.html", "part") == "a.html"


# --- pages that swap a section: a history restore gets the whole page, a swap the section

SWAP = {"HX-Request": "true"}
RESTORE = {"HX-Request": "true", "HX-History-Restore-Request": "true"}


def _is_whole_page(html: str) -> bool:
    return bool(find_all(html, "nav", aria_label="Main"))


@pytest.mark.django_db
def test_the_interop_page_restored_from_history_is_whole(client_as):
    client = client_as("viewer")
    swapped = client.get("/interop/", headers=SWAP).content.decode()
    assert not _is_whole_page(swapped)
    assert [attribute(top_element, "id") for top_element in top(swapped)][:1] == ["sync-section"]
    assert _is_whole_page(client.get("/interop/", headers=RESTORE).content.decode())


@pytest.mark.django_db
def test_the_fragment_page_restored_from_history_is_whole(client_as, project):
    memory = memory_create(
        project=project, category="OPS_RULES", content="One.\n\nTwo.", actor="agent"
    )
    client = client_as("editor")
    url = f"/structure/fragment/{memory.pk}/"
    swapped = client.get(url, headers=SWAP).content.decode()
    assert not _is_whole_page(swapped) and find(swapped, id="split-section")
    assert _is_whole_page(client.get(url, headers=RESTORE).content.decode())
