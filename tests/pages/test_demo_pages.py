"""Every page of the demo, reached from `/` as an admin: no template syntax, every cell named,
every description a control points at on its page.

Beside the demo, a synced store with a workspace (the demo has none), and the pages reached
only through a selection (merge, group), so every form with help text is rendered.
"""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from memadmin.interop.models import Workspace
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.html_tree import find_all
from tests.interop.workspace_edit_store import build_edit_store
from tests.page_walk import (
    cell_label_problems,
    dangling_descriptions,
    demo_extras,
    template_syntax,
    walk,
)

pytestmark = pytest.mark.django_db


def selection_pages() -> tuple[str, ...]:
    """Return the merge and group pages for two live memories of a demo project."""
    first = Memory.objects.filter(status="active").order_by("pk").first()
    pair = Memory.objects.filter(project=first.project, status="active").order_by("pk")[:2]
    ids = "&".join(f"ids={memory.pk}" for memory in pair)
    return (f"/memories/merge/?{ids}", f"/curation/{first.project_id}/group/?{ids}")


def test_every_page_of_the_demo_is_free_of_template_syntax_names_each_cell_and_description(
    tmp_path,
):
    """Every page an admin can reach from `/` is free of `{#`, `#}`, `{%`, `%}`, `{{` and `}}`;
    every body cell of its data tables has a `data-label` (a `colspan` cell aside): on a phone
    the header row is hidden and the label is all that says which column a value is in; and a
    control's `aria-describedby` ids (its help text) all exist on its page.

    One walk for the three, the demo is built once (the build is most of the test's time).
    """
    call_command("demo")
    extras = (*demo_extras(), *selection_pages())
    context_db_sync(path=build_edit_store(tmp_path / "context.db"))
    extras += (f"/interop/workspaces/{Workspace.objects.order_by('pk').first().pk}/",)
    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))

    def fetch(path):
        response = client.get(path, follow=True)
        return response.status_code, response.content.decode()

    failures, unlabelled, dangling = [], [], []
    walked, described, reached = 0, 0, set()
    for path, status, html in walk(fetch, extra=extras):
        walked += 1
        reached.add(path.split("?")[0])
        if status >= 500:
            failures.append(f"{path}: status {status}")
        failures += [f"{path}: {piece!r}" for piece in template_syntax(html)]
        unlabelled += [f"{path}: {problem}" for problem in cell_label_problems(html)]
        described += len(find_all(html, aria_describedby=True))
        dangling += [f"{path}: {problem}" for problem in dangling_descriptions(html)]
    assert walked > 30, f"only {walked} pages were reached"
    assert described > 10, f"only {described} described controls: the check saw too little"
    assert {extra.split("?")[0] for extra in extras} <= reached
    assert not failures, "\n".join(failures)
    assert not unlabelled, "cells not named by their column (data-label):\n" + "\n".join(unlabelled)
    assert not dangling, "descriptions not on their page:\n" + "\n".join(dangling)
