"""`partial_or_page`: the fragment for htmx swaps, the whole page otherwise."""

from django.test import RequestFactory
from django_htmx.middleware import HtmxDetails

from memadmin.htmx_request import partial_or_page


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
