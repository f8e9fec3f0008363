"""Every page of the demo, reached from `/` as an admin: no template syntax, every cell named."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from tests.page_walk import cell_label_problems, demo_extras, template_syntax, walk

pytestmark = pytest.mark.django_db


def test_every_page_of_the_demo_is_free_of_template_syntax_and_names_each_cell():
    """Every page an admin can reach from `/` is free of `{#`, `#}`, `{%`, `%}`, `{{` and `}}`,
    and every body cell of its data tables has a `data-label` (a `colspan` cell aside): on a
    phone the header row is hidden and the label is all that says which column a value is in.

    One walk for both, the demo is built once (the build is most of the test's time).
    """
    call_command("demo")
    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))

    def fetch(path):
        response = client.get(path, follow=True)
        return response.status_code, response.content.decode()

    failures, unlabelled, walked = [], [], 0
    for path, status, html in walk(fetch, extra=demo_extras()):
        walked += 1
        if status >= 500:
            failures.append(f"{path}: status {status}")
        failures += [f"{path}: {piece!r}" for piece in template_syntax(html)]
        unlabelled += [f"{path}: {problem}" for problem in cell_label_problems(html)]
    assert walked > 30, f"only {walked} pages were reached"
    assert not failures, "\n".join(failures)
    assert not unlabelled, "cells not named by their column (data-label):\n" + "\n".join(unlabelled)
