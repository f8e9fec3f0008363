"""Resolving a composite conflict in a browser, on a phone: both sides readable, one kept."""

import sqlite3

import pytest

from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create, composite_member_add
from memadmin.interop.composites.publish import composites_publish, composites_unpublish
from memadmin.interop.models import UpstreamStore
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.interop.composites.test_composite_publish import store_composites
from tests.upstream_store import build_store, make_row

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_curator_keeps_the_stores_composite_at_390_px(logged_in_page, live_server, tmp_path):
    """The conflict fits the screen; keeping the store's side says so and takes its row."""
    path = build_store(
        tmp_path / "context.db", rows=[make_row(content=f"Step {n}.") for n in range(1, 5)]
    )
    context_db_sync(path=path)
    upstream = UpstreamStore.objects.get()
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composites_publish(upstream=upstream, actor="system")
    composite = composite_create(
        head=memories[1], type="sequence", members=[memories[2]], actor="agent"
    )
    composites_unpublish(upstream=upstream, actor="system")
    composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("UPDATE composites SET type = 'theme'")
    connection.close()
    composites_publish(upstream=upstream, actor="system")
    context_db_sync(path=path)

    page = logged_in_page("curator")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/interop/")
    card = page.locator(f"#composite-conflict-{composite.pk}")
    assert card.locator(".store-side").inner_text().count("Step") == 2  # head and one member
    assert card.locator(".memadmin-side").inner_text().count("Step") == 3
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    card.locator("button[value=store]").click()
    page.locator(".messages", has_text="kept the store's composite").wait_for()
    assert page.locator(f"#composite-conflict-{composite.pk}").count() == 0
    assert Composite.objects.get(pk=composite.pk).type == "theme"
    assert store_composites(path) == [("theme", 1, 0, [2])]
