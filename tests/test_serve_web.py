"""The web server of `memadmin serve` gets ready for its first request before it listens."""

from django.template.loader import get_template
from django.urls import reverse

from memadmin.serve_web import FIRST_TEMPLATES, ready


def test_getting_ready_reads_no_database():
    """`ready` imports every view, builds the addresses and loads the middleware and the first
    pages' templates without a query (pytest-django refuses one here): the wait before a
    restart's first answer is the same whatever the store's size."""
    ready()
    assert reverse("login") == "/login/"
    assert reverse("ledger:page", args=[1]) == "/ledger/1/"
    for name in FIRST_TEMPLATES:
        assert get_template(name).origin.template_name == name
