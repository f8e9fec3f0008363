"""The Import/export page's composites section: publish, stop, drop after a backup, criteria."""

import sqlite3

import pytest
from django.urls import reverse

from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create, composite_fingerprint
from memadmin.interop.composites.publish import composites_publish
from memadmin.interop.models import StoreComposites, UpstreamStore
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.html_tree import field_error, find, find_all, text
from tests.interop.composites.test_composite_publish import tables
from tests.interop.conftest import rows_for, sha256

pytestmark = pytest.mark.django_db


@pytest.fixture
def synced(store):
    path = store(rows=rows_for(3), sessions=[])
    context_db_sync(path=path)
    return path, UpstreamStore.objects.get()


def test_a_curator_publishes_and_stops_without_javascript(client_as, synced):
    """The publish and stop buttons are plain POST forms; the page says the state."""
    path, upstream = synced
    client = client_as("curator")
    page = client.get(reverse("interop:index")).content.decode()
    assert "not published" in page and "Publish composites" in page
    response = client.post(reverse("interop:store_composites_publish", args=[upstream.pk]))
    assert response.status_code == 302
    assert {"composites", "composite_members"} <= tables(path)
    page = client.get(reverse("interop:index")).content.decode()
    published = find(page, "td", data_label="Published")
    assert text(published) == "published" and text(find(published, "strong")) == "published"
    assert "Stop publishing" in page
    client.post(reverse("interop:store_composites_unpublish", args=[upstream.pk]))
    assert not StoreComposites.objects.get().published
    assert {"composites", "composite_members"} <= tables(path)


def test_an_editor_cannot_publish(client_as, synced):
    """Publishing is a curator's decision."""
    path, upstream = synced
    digest = sha256(path)
    response = client_as("editor").post(
        reverse("interop:store_composites_publish", args=[upstream.pk])
    )
    assert response.status_code == 403
    assert sha256(path) == digest


def test_dropping_needs_the_typed_word_and_makes_a_backup_first(
    client_as, synced, tmp_path, settings
):
    """Without the word nothing is dropped; with it, a backup holding the tables comes first."""
    path, upstream = synced
    settings.VAR_DIR = tmp_path / "var"
    client = client_as("curator")
    client.post(reverse("interop:store_composites_publish", args=[upstream.pk]))
    client.post(reverse("interop:store_composites_drop", args=[upstream.pk]), {"confirm": "yes"})
    assert {"composites", "composite_members"} <= tables(path)
    client.post(reverse("interop:store_composites_drop", args=[upstream.pk]), {"confirm": "drop"})
    assert not {"composites", "composite_members"} & tables(path)
    state = StoreComposites.objects.get()
    assert not state.published
    assert {"composites", "composite_members"} <= tables(state.backup_path)


@pytest.mark.parametrize("word", ["", "yes", "drop it"])
def test_a_wrong_drop_word_is_refused_at_its_box_and_nothing_is_dropped(
    client_as, synced, tmp_path, settings, word
):
    """The page comes back (400) with the drop folded open and the error at the box."""
    path, upstream = synced
    settings.VAR_DIR = tmp_path / "var"
    client = client_as("curator")
    client.post(reverse("interop:store_composites_publish", args=[upstream.pk]))
    digest = sha256(path)
    response = client.post(
        reverse("interop:store_composites_drop", args=[upstream.pk]), {"confirm": word}
    )
    assert response.status_code == 400
    html = response.content.decode()
    box = f"drop-{upstream.pk}-confirm"
    assert field_error(html, box) == 'Type "drop" to confirm dropping the composite tables.'
    assert "open" in find(html, "details", class_="drop-tables").attributes
    assert f"Nothing was dropped from {path}: see its drop box below." in html
    assert find(html, "input", id=box).attributes.get("value") == (word or None)
    assert sha256(path) == digest
    assert StoreComposites.objects.get().published
    assert not (tmp_path / "var").exists() or not any((tmp_path / "var").rglob("*.db"))


def test_a_category_criteria_table_is_reported_and_never_written(client_as, synced):
    """A patched tree's criteria table is named on the page; memadmin does not write it."""
    path, _ = synced
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("CREATE TABLE category_criteria (category TEXT PRIMARY KEY, body TEXT)")
    connection.close()
    digest = sha256(path)
    page = client_as("viewer").get(reverse("interop:index")).content.decode()
    criteria = find(page, "td", data_label="Criteria table")
    assert text(criteria).startswith("category_criteria present (category, body)")
    assert text(find_all(criteria, "code")[0]) == "category_criteria"
    assert "never written" in text(criteria)
    assert sha256(path) == digest


def test_a_foreign_table_is_shown_and_publishing_refused_on_the_page(client_as, store):
    """The page names the difference, and the refusal comes back as a message."""
    path = store(rows=rows_for(2), sessions=[])
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("CREATE TABLE composite_members (a INTEGER, b INTEGER)")
    connection.close()
    context_db_sync(path=path)
    upstream = UpstreamStore.objects.get()
    digest = sha256(path)
    client = client_as("curator")
    page = client.get(reverse("interop:index")).content.decode()
    assert "the store&#x27;s table composite_members has another shape" in page
    response = client.post(
        reverse("interop:store_composites_publish", args=[upstream.pk]), follow=True
    )
    assert "Nothing was created" in response.content.decode()
    assert sha256(path) == digest


def test_a_delete_the_store_refuses_is_shown_not_a_server_error(client_as, synced):
    """The store's composite changed since memadmin read it: the delete page says so."""
    path, upstream = synced
    composites_publish(upstream=upstream, actor="system")
    memories = {m.upstream_id: m for m in Memory.objects.all()}
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("UPDATE composites SET cursor = 0, type = 'cause'")
    connection.close()
    response = client_as("editor").post(
        reverse("composites:delete", args=[composite.pk]),
        {"fingerprint": composite_fingerprint(composite), "reason": ""},
    )
    assert response.status_code == 409
    assert "changed since memadmin read it" in response.content.decode()
    assert Composite.objects.filter(pk=composite.pk).exists()
