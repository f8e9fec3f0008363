"""Publishing again over linked store rows: the base check holds, a newer write is never lost."""

import sqlite3

import pytest
from django.urls import reverse

from memadmin.composites.services import composite_create, composite_member_add
from memadmin.interop.composites.publish import composites_publish, composites_unpublish
from memadmin.interop.writing.services import context_db_sync
from tests.html_tree import find, find_all, links, text
from tests.interop.composites.test_composite_publish import store_composites, synced  # noqa: F401

pytestmark = pytest.mark.django_db


def other_process(path, sql: str) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute(sql)
    finally:
        connection.close()


@pytest.fixture
def unpublished(synced):  # noqa: F811
    """A composite #1 <- [#2] published, then publishing turned off; return (path, store, c, m)."""
    path, upstream, memories = synced
    composites_publish(upstream=upstream, actor="system")
    composite = composite_create(
        head=memories[1], type="theme", members=[memories[2]], actor="agent"
    )
    composites_unpublish(upstream=upstream, actor="system")
    return path, upstream, composite, memories


def test_publishing_again_keeps_a_row_changed_in_the_store_and_the_sync_reads_it_back(unpublished):
    """Changed by another process while unpublished: not overwritten, reported, then read back."""
    path, upstream, composite, _ = unpublished
    other_process(path, "UPDATE composites SET type = 'alternatives'")
    created, conflicts = composites_publish(upstream=upstream, actor="system")
    assert created == []
    assert [c["problem"].split(" ")[0] for c in conflicts] == ["changed"]
    assert store_composites(path) == [("alternatives", 1, 0, [2])]
    composite.refresh_from_db()
    assert composite.type == "theme"
    context_db_sync(path=path)
    composite.refresh_from_db()
    assert composite.type == "alternatives"


def test_publishing_again_overwrites_neither_side_when_both_changed(unpublished):
    """Changed in memadmin and in the store: both kept, a conflict reported."""
    path, upstream, composite, memories = unpublished
    composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    other_process(path, "UPDATE composites SET type = 'alternatives'")
    _, conflicts = composites_publish(upstream=upstream, actor="system")
    assert len(conflicts) == 1 and conflicts[0]["row"] is not None
    assert store_composites(path) == [("alternatives", 1, 0, [2])]
    assert list(composite.members.order_by("position").values_list("member_id", flat=True)) == [
        memories[2].pk,
        memories[3].pk,
    ]
    composite.refresh_from_db()
    assert composite.type == "theme"


def test_publishing_again_writes_what_memadmin_changed_over_an_unchanged_row(unpublished):
    """Changed in memadmin only while unpublished: the store row (still the base) is written."""
    path, upstream, composite, memories = unpublished
    composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    assert store_composites(path) == [("theme", 1, 0, [2])]
    _, conflicts = composites_publish(upstream=upstream, actor="system")
    assert conflicts == []
    assert store_composites(path) == [("theme", 1, 0, [2, 3])]


def test_publishing_again_does_not_bring_back_a_row_deleted_in_the_store(unpublished):
    """Deleted by another process while unpublished: not inserted again, reported."""
    path, upstream, _, _ = unpublished
    other_process(path, "DELETE FROM composite_members")
    other_process(path, "DELETE FROM composites")
    _, conflicts = composites_publish(upstream=upstream, actor="system")
    assert conflicts[0]["problem"].startswith("deleted in the store")
    assert store_composites(path) == []


def test_a_composite_changed_on_both_sides_is_listed_with_both_on_the_conflicts_section(
    unpublished, client_as
):
    """After the sync, the Import/export page's conflicts section shows each side's composite."""
    path, upstream, composite, memories = unpublished
    composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    other_process(path, "UPDATE composites SET type = 'alternatives'")
    composites_publish(upstream=upstream, actor="system")
    context_db_sync(path=path)
    page = client_as("curator").get(reverse("interop:index")).content.decode()
    section = find(page, "section", id="sync-conflicts")
    assert "No conflict" not in text(section)
    (conflict,) = find_all(section, "article", class_="composite-conflict")
    store_side = find(conflict, "section", class_="store-side")
    memadmin_side = find(conflict, "section", class_="memadmin-side")
    assert text(find_all(store_side, "strong")[0]) == "alternatives"
    assert "#3" not in [name for name, _ in links(store_side)]
    assert text(find_all(memadmin_side, "strong")[0]) == "theme"
    assert {"#2", "#3"} <= {name for name, _ in links(memadmin_side)}
    heading = find(conflict, "h4")
    assert links(heading) == [
        (f"Composite {composite.pk}", reverse("composites:detail", args=[composite.pk]))
    ]
