"""Resolving a composite conflict: keep memadmin's composite or the store's row, checked."""

import pytest
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import composite_member_add, composite_set_type
from memadmin.interop.composites.conflicts import composite_conflicts
from memadmin.interop.composites.publish import composites_publish, composites_unpublish
from memadmin.interop.models import StoreComposite
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from tests.html_tree import Node, attribute, find, find_all, links, submitted, text
from tests.interop.composites.test_composite_publish import store_composites, synced  # noqa: F401
from tests.interop.composites.test_composite_republish import other_process, unpublished  # noqa: F401
from tests.interop.conftest import sha256

pytestmark = pytest.mark.django_db


def shown(composite: Composite) -> tuple:
    members = [m.member.upstream_id for m in composite.members.order_by("position")]
    return (composite.type, composite.head.upstream_id, members)


@pytest.fixture
def conflicted(unpublished):  # noqa: F811
    """Composite #1 <- [#2]: memadmin adds #3, the store makes it alternatives; then a sync."""
    path, upstream, composite, memories = unpublished
    composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    other_process(path, "UPDATE composites SET type = 'alternatives'")
    composites_publish(upstream=upstream, actor="system")
    context_db_sync(path=path)
    [conflict] = composite_conflicts()
    return path, composite, memories, conflict


def resolve(client, composite, keep, version):
    data = {"keep": keep} if version is None else {"keep": keep, "version": version}
    return client.post(reverse("interop:composite_conflict_resolve", args=[composite.pk]), data)


def page(client) -> Node:
    """The Import/export page's section of sync conflicts."""
    return find(
        client.get(reverse("interop:index")).content.decode(), "section", id="sync-conflicts"
    )


def side(section: Node, name: str) -> str:
    """Return the text of one side ("store" or "memadmin") of the one composite conflict."""
    (conflict,) = find_all(section, "article", class_="composite-conflict")
    return text(find(conflict, "section", class_=f"{name}-side"))


def test_the_page_offers_both_sides_to_a_curator_only(conflicted, client_as):
    """The conflict shows its two sides, with two plain POST buttons carrying the version."""
    _, composite, memories, conflict = conflicted
    section = page(client_as("curator"))
    theirs, mine = side(section, "store"), side(section, "memadmin")
    assert theirs.startswith("In the store alternatives, cursor at 0 Head: #1 ")
    assert mine.startswith("In memadmin theme, cursor at 0 Head: #1 ")
    assert memories[3].content[:40] in mine and memories[3].content[:40] not in theirs
    assert reverse("memories:detail", args=[memories[2].pk]) in [href for _, href in links(section)]
    action = reverse("interop:composite_conflict_resolve", args=[composite.pk])
    form = find(section, "form", method="post", action=action)
    assert find(form, "input", type="hidden", name="version", value=conflict["version"])
    assert [name for name, _ in submitted(form)] == ["csrfmiddlewaretoken", "version", "reason"]
    keeps = [
        attribute(button, "value")
        for button in find_all(form, "button", type="submit", name="keep")
    ]
    assert keeps == ["store", "memadmin"]
    assert (
        "Keep the store" not in client_as("editor").get(reverse("interop:index")).content.decode()
    )


def test_keeping_memadmins_side_writes_it_over_the_store_row(conflicted, client_as, people):
    """The store gets memadmin's composite, the base moves, the next sync finds no conflict."""
    path, composite, _, conflict = conflicted
    client = client_as("curator")
    response = resolve(client, composite, "memadmin", conflict["version"])
    assert response.status_code == 302
    assert store_composites(path) == [("theme", 1, 0, [2, 3])]
    composite.refresh_from_db()
    assert shown(composite) == ("theme", 1, [2, 3])
    event = AuditEvent.objects.get(action="composite_conflict_resolved")
    assert (event.actor_label, event.changes["keep"]) == (people["curator"].username, "memadmin")
    assert "Keep the store" not in client.get(reverse("interop:index")).content.decode()
    context_db_sync(path=path)
    assert composite_conflicts() == []
    assert store_composites(path) == [("theme", 1, 0, [2, 3])]


def test_keeping_the_stores_side_takes_it_as_an_import_version(conflicted, client_as, people):
    """memadmin's composite becomes the store's row, as an import version; the store stays."""
    path, composite, _, conflict = conflicted
    before = sha256(path)
    resolve(client_as("curator"), composite, "store", conflict["version"])
    composite.refresh_from_db()
    assert shown(composite) == ("alternatives", 1, [2])
    assert composite.history.first().history_actor == "import"
    event = AuditEvent.objects.get(action="composite_conflict_resolved")
    assert event.actor_label == people["curator"].username
    assert event.change_id == AuditEvent.objects.get(action="composite_imported").change_id
    assert sha256(path) == before
    context_db_sync(path=path)
    assert composite_conflicts() == []
    composite.refresh_from_db()
    assert shown(composite) == ("alternatives", 1, [2])


@pytest.mark.parametrize("keep", ["memadmin", "store"])
def test_a_store_row_changed_again_since_the_sync_is_refused(conflicted, client_as, keep):
    """The agent wrote the row again after the sync: neither side changes."""
    path, composite, _, conflict = conflicted
    other_process(path, "UPDATE composites SET cursor = 0, type = 'cause'")
    before = sha256(path)
    response = resolve(client_as("curator"), composite, keep, conflict["version"])
    assert response.status_code == 409
    assert "changed again since the sync found the conflict" in response.content.decode()
    assert sha256(path) == before
    composite.refresh_from_db()
    assert shown(composite) == ("theme", 1, [2, 3])
    assert not AuditEvent.objects.filter(action="composite_conflict_resolved").exists()


@pytest.mark.parametrize("version", [None, "", "0" * 32])
def test_a_stale_or_missing_version_is_refused(conflicted, client_as, version):
    """A form without the version, or with another, changes nothing on either side."""
    path, composite, _, _ = conflicted
    before = sha256(path)
    response = resolve(client_as("curator"), composite, "memadmin", version)
    assert response.status_code == 409
    assert "Nothing was changed" in response.content.decode()
    assert sha256(path) == before
    assert not AuditEvent.objects.filter(action="composite_conflict_resolved").exists()


@pytest.mark.parametrize("keep", [None, "", "both", "merged"])
def test_an_unknown_side_is_refused_and_nothing_changes(conflicted, client_as, keep):
    """A post choosing no side, or one the page does not offer: 400, said, nothing written."""
    path, composite, _, conflict = conflicted
    before = sha256(path)
    data = {"version": conflict["version"]} | ({} if keep is None else {"keep": keep})
    response = client_as("curator").post(
        reverse("interop:composite_conflict_resolve", args=[composite.pk]), data
    )
    assert response.status_code == 400
    assert "Choose one of: store, memadmin." in response.content.decode()
    assert sha256(path) == before
    assert shown(Composite.objects.get(pk=composite.pk)) == ("theme", 1, [2, 3])
    assert not AuditEvent.objects.filter(action="composite_conflict_resolved").exists()


@pytest.mark.parametrize("keep", ["memadmin", "store"])
def test_a_store_whose_composite_tables_were_dropped_is_refused(conflicted, client_as, keep):
    """The tables went after the sync: either side is refused, saying so; nothing changes."""
    path, composite, _, conflict = conflicted
    other_process(path, "DROP TABLE composite_members")
    other_process(path, "DROP TABLE composites")
    before = sha256(path)
    response = resolve(client_as("curator"), composite, keep, conflict["version"])
    assert response.status_code == 400
    assert "no longer has the composite tables; sync it again" in response.content.decode()
    assert sha256(path) == before
    composite.refresh_from_db()
    assert shown(composite) == ("theme", 1, [2, 3])
    assert not AuditEvent.objects.filter(action="composite_conflict_resolved").exists()


def test_a_composite_changed_here_since_the_page_is_refused(conflicted, client_as):
    """memadmin's composite moved after the page was shown: its version no longer holds."""
    path, composite, _, conflict = conflicted
    composites_unpublish(upstream=composite.project.upstream_link.store, actor="system")
    composite_set_type(composite=composite, type="cause", actor="agent")
    composites_publish(upstream=composite.project.upstream_link.store, actor="system")
    before = sha256(path)
    response = resolve(client_as("curator"), composite, "store", conflict["version"])
    assert response.status_code == 409
    assert "Someone else changed this composite" in response.content.decode()
    composite.refresh_from_db()
    assert composite.type == "cause"
    assert sha256(path) == before


def test_an_editor_cannot_resolve(conflicted, client_as):
    path, composite, _, conflict = conflicted
    before = sha256(path)
    response = resolve(client_as("editor"), composite, "memadmin", conflict["version"])
    assert response.status_code == 403
    assert sha256(path) == before
    assert len(composite_conflicts()) == 1


@pytest.fixture
def deleted_in_store(unpublished):  # noqa: F811
    """The store deletes composite #1 while memadmin adds #3 to it; then a sync."""
    path, upstream, composite, memories = unpublished
    composite_member_add(composite=composite, members=[memories[3]], actor="agent")
    other_process(path, "DELETE FROM composite_members")
    other_process(path, "DELETE FROM composites")
    composites_publish(upstream=upstream, actor="system")
    context_db_sync(path=path)
    [conflict] = composite_conflicts()
    assert conflict["sides"]["store"] == "deleted"
    return path, composite, conflict


def test_keeping_the_stores_deletion_deletes_the_composite(deleted_in_store, client_as):
    path, composite, conflict = deleted_in_store
    client = client_as("curator")
    assert "Delete it here, as the store did" in text(page(client))
    resolve(client, composite, "store", conflict["version"])
    assert not Composite.objects.filter(pk=composite.pk).exists()
    assert store_composites(path) == []
    assert AuditEvent.objects.get(action="composite_deleted").actor_label == "import"


def test_keeping_memadmins_side_over_a_deletion_writes_it_again(deleted_in_store, client_as):
    path, composite, conflict = deleted_in_store
    resolve(client_as("curator"), composite, "memadmin", conflict["version"])
    assert store_composites(path) == [("theme", 1, 0, [2, 3])]
    link = StoreComposite.objects.get(composite=composite)
    context_db_sync(path=path)
    assert composite_conflicts() == []
    assert StoreComposite.objects.get(composite=composite).upstream_id == link.upstream_id


def test_memadmins_side_is_refused_while_composites_are_not_published(conflicted, client_as):
    """Without publishing memadmin writes no composite there: keeping its side is refused."""
    path, composite, _, conflict = conflicted
    composites_unpublish(upstream=composite.project.upstream_link.store, actor="system")
    before = sha256(path)
    response = resolve(client_as("curator"), composite, "memadmin", conflict["version"])
    assert response.status_code == 400
    assert "cannot reach the store" in response.content.decode()
    assert sha256(path) == before
    assert not AuditEvent.objects.filter(action="composite_conflict_resolved").exists()


def test_a_store_row_memadmin_cannot_take_is_refused(conflicted, client_as):
    """The store's side names a memory archived here since: refused as the read-back would."""
    _, composite, memories, conflict = conflicted
    Memory.objects.filter(pk=memories[2].pk).update(status=Memory.Status.ARCHIVED)
    response = resolve(client_as("curator"), composite, "store", conflict["version"])
    assert response.status_code == 400
    assert "its member memory 2 is archived" in response.content.decode()
    composite.refresh_from_db()
    assert shown(composite) == ("theme", 1, [2, 3])
    assert not AuditEvent.objects.filter(action="composite_conflict_resolved").exists()
