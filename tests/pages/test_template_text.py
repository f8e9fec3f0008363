"""No page of the demo shows template syntax: every page reached from `/`, as an admin."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from tests.page_walk import demo_extras, template_syntax, walk

pytestmark = pytest.mark.django_db


def test_no_page_of_the_demo_shows_template_syntax():
    """Every page an admin can reach from `/` is free of `{#`, `#}`, `{%`, `%}`, `{{` and `}}`."""
    call_command("demo")
    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))

    def fetch(path):
        response = client.get(path, follow=True)
        return response.status_code, response.content.decode()

    failures, walked = [], 0
    for path, status, html in walk(fetch, extra=demo_extras()):
        walked += 1
        if status >= 500:
            failures.append(f"{path}: status {status}")
        failures += [f"{path}: {piece!r}" for piece in template_syntax(html)]
    assert walked > 30, f"only {walked} pages were reached"
    assert not failures, "\n".join(failures)
