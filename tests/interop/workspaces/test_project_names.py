"""Projects named as their user knows them: from the store's workspaces, or by a person."""

import pytest
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.interop.writing.services import context_db_sync
from memadmin.projects.models import Project
from tests import html_tree
from tests.interop.write_through.test_store_writes import store_exec
from tests.upstream_store import BASE_TIME_MS, OTHER_PROJECT, PROJECT, make_row

pytestmark = pytest.mark.django_db


def add_member(path, *, workspace: str, project: str, name, folder, workspace_id=None):
    """Add a workspace (if new) and one member row as upstream's `ctx_workspace` writes them."""
    store_exec(
        path,
        "INSERT OR IGNORE INTO workspaces (name, created_at) VALUES (?, ?)",
        (workspace, BASE_TIME_MS),
    )
    store_exec(
        path,
        "INSERT INTO workspace_members (workspace_id, project_path, display_name, display_path, "
        "added_at) SELECT id, ?, ?, ?, ? FROM workspaces WHERE name = ?",
        (project, name, folder, BASE_TIME_MS, workspace),
    )


@pytest.fixture
def named_store(store):
    """A store of two projects: the main one named "Checkout" by its workspace member, the
    other with only a display path."""
    path = store(
        rows=[
            make_row(content="Use scripts/release.sh VERSION for releases."),
            make_row(content="Tabs are for tables only.", project_path=OTHER_PROJECT),
        ],
        sessions=[],
    )
    add_member(path, workspace="shop", project=PROJECT, name="Checkout", folder="/src/checkout")
    add_member(path, workspace="shop", project=OTHER_PROJECT, name="", folder="/src/billing-api/")
    context_db_sync(path=path)
    return path


def test_a_sync_names_projects_from_the_stores_workspace_members(named_store, client_as):
    """A display name names the project; without one, the folder of its display path does.
    The overview card shows the name, its identity on hover, once."""
    assert Project.objects.get(identity=PROJECT).name == "Checkout"
    other = Project.objects.get(identity=OTHER_PROJECT)
    assert (other.name, other.name_source) == ("billing-api", "store")
    client_as("viewer")
    page = client_as("viewer").get(reverse("home")).content.decode()
    heading = html_tree.find(page, "h2", id=f"project-{Project.objects.get(identity=PROJECT).pk}")
    assert html_tree.text(heading) == "Checkout"
    assert html_tree.attribute(html_tree.find(heading, "span"), "title") == PROJECT
    assert page.count(PROJECT) == 1


def test_the_memory_page_shows_the_name_and_the_identity_once(named_store, client_as):
    """The memory's project reads "Checkout git:..." (the identity whole, once)."""
    memory = Project.objects.get(identity=PROJECT).memories.get()
    page = client_as("viewer").get(reverse("memories:detail", args=[memory.pk])).content.decode()
    project = html_tree.definitions(html_tree.find(page, "dl"))["Project"]
    assert html_tree.text(project) == f"Checkout {PROJECT}"


def test_without_a_workspace_a_project_is_named_by_its_short_identity(store, client_as):
    """No member row: the name is the identity shortened, and the memory page shows the
    identity whole, once, not beside its own abbreviation."""
    path = store(rows=[make_row(content="Deploys need the VPN.")], sessions=[])
    context_db_sync(path=path)
    project = Project.objects.get(identity=PROJECT)
    assert (project.name, project.name_source) == ("git:3f9c2a7d51e0", "identity")
    memory = project.memories.get()
    page = client_as("viewer").get(reverse("memories:detail", args=[memory.pk])).content.decode()
    shown = html_tree.text(html_tree.definitions(html_tree.find(page, "dl"))["Project"])
    assert shown == PROJECT


def rename(client, project, name, shown, reason="the team calls it so"):
    return client.post(
        reverse("projects:rename", args=[project.pk]),
        {"name": name, "shown_name": shown, "reason": reason},
    )


def test_an_editor_renames_a_project_with_its_audit_record(named_store, client_as, people):
    """The rename is kept with who, why and the old and new names."""
    project = Project.objects.get(identity=PROJECT)
    response = rename(client_as("editor"), project, "Checkout service", shown="Checkout")
    assert response.status_code == 302
    project.refresh_from_db()
    assert (project.name, project.name_source) == ("Checkout service", "user")
    event = AuditEvent.objects.filter(action="project_renamed", project=project).latest("pk")
    assert event.actor_label == "editor"
    assert event.reason == "the team calls it so"
    assert event.changes["name"] == ["Checkout", "Checkout service"]
    page = client_as("viewer").get(reverse("projects:detail", args=[project.pk])).content.decode()
    assert html_tree.text(html_tree.find(page, "h1")) == "Checkout service"


def test_a_stale_rename_is_refused_and_changes_nothing(named_store, client_as):
    """A page that showed "Checkout" cannot rename over a newer name; the form then carries
    the name shown now, and a rename sent without the name it replaces is refused too."""
    project = Project.objects.get(identity=PROJECT)
    editor = client_as("editor")
    assert rename(editor, project, "Shop checkout", shown="Checkout").status_code == 302
    events = AuditEvent.objects.count()
    refused = rename(editor, project, "Old page's name", shown="Checkout")
    assert refused.status_code == 409
    page = refused.content.decode()
    assert "renamed to “Shop checkout” after the page was shown" in page
    assert html_tree.attribute(html_tree.find(page, "input", name="shown_name"), "value") == (
        "Shop checkout"
    )
    assert rename(editor, project, "No version", shown="").status_code == 409
    project.refresh_from_db()
    assert project.name == "Shop checkout"
    assert AuditEvent.objects.count() == events


def test_a_blank_or_long_name_is_refused(named_store, client_as):
    """Bad input gets its error under the box and changes nothing."""
    project = Project.objects.get(identity=PROJECT)
    editor = client_as("editor")
    assert rename(editor, project, "   ", shown="Checkout").status_code == 400
    assert rename(editor, project, "x" * 201, shown="Checkout").status_code == 400
    project.refresh_from_db()
    assert project.name == "Checkout"


def test_a_viewer_cannot_rename(named_store, client_as):
    """A viewer sees the page without the form, and a post is refused."""
    project = Project.objects.get(identity=PROJECT)
    viewer = client_as("viewer")
    page = viewer.get(reverse("projects:detail", args=[project.pk])).content.decode()
    assert not html_tree.find_all(page, "form", class_="project-rename")
    assert rename(viewer, project, "Mine", shown="Checkout").status_code == 403
    project.refresh_from_db()
    assert project.name == "Checkout"


def test_a_sync_keeps_a_name_a_person_chose(named_store, client_as):
    """The store's display names change; the renamed project keeps its name, the other
    follows the store, and back to its short identity when the store names it no more."""
    project = Project.objects.get(identity=PROJECT)
    assert rename(client_as("editor"), project, "Our shop", shown="Checkout").status_code == 302
    store_exec(named_store, "UPDATE workspace_members SET display_name = 'Till'")
    store_exec(named_store, "UPDATE memories SET updated_at = updated_at + 1")
    context_db_sync(path=named_store)
    assert Project.objects.get(identity=PROJECT).name == "Our shop"
    assert Project.objects.get(identity=OTHER_PROJECT).name == "Till"
    store_exec(named_store, "DELETE FROM workspace_members")
    store_exec(named_store, "UPDATE memories SET updated_at = updated_at + 1")
    context_db_sync(path=named_store)
    assert Project.objects.get(identity=PROJECT).name == "Our shop"
    other = Project.objects.get(identity=OTHER_PROJECT)
    assert (other.name, other.name_source) == (OTHER_PROJECT, "identity")
    renamed = AuditEvent.objects.filter(action="project_renamed", project=other).latest("pk")
    assert renamed.changes["name"] == ["Till", OTHER_PROJECT]


def test_project_pickers_show_names_with_the_identity_on_hover(named_store, client_as):
    """The memory list's project picker lists names; each option's title is the identity."""
    page = client_as("viewer").get(reverse("memories:list")).content.decode()
    picker = html_tree.find(page, "select", name="project")
    options = {
        html_tree.text(option): html_tree.attribute(option, "title")
        for option in html_tree.find_all(picker, "option")
    }
    assert options == {
        "All projects": None,
        "billing-api": OTHER_PROJECT,
        "Checkout": PROJECT,
    }
