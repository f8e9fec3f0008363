"""Every other form that edits something stored, posted back untouched, writes nothing.

The memory forms are in tests/test_untouched_saves.py. Here: the workspace edit form (its
stored share list kept as written, whatever its spelling), the composite page's type and
title forms, the criteria forms, and the Django admin's change forms of projects,
composites, categories and people. Each is read from its page and posted as a browser would.
"""

import sqlite3

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.urls import reverse

from memadmin.accounts.roles import role_of
from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create
from memadmin.interop.models import Workspace
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.services import memory_create
from memadmin.projects.models import Project
from memadmin.taxonomy.criteria_fields import FIELDS
from memadmin.taxonomy.models import Category
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import criteria_override_save
from tests.html_tree import find, find_all, posted, text
from tests.interop.workspace_edit_store import API, WEB, build_edit_store, run_sql
from tests.test_untouched_saves import admin_form
from tests.upstream_store import PROJECT, build_store, make_row

pytestmark = pytest.mark.django_db


def written() -> tuple:
    """Return the trails every save leaves: audit events and Django's admin log."""
    return (
        list(AuditEvent.objects.values_list("pk", flat=True)),
        list(LogEntry.objects.values_list("pk", flat=True)),
    )


def page_form(client, page_url: str, action: str) -> dict:
    """Return what a browser posts from the page's form to ``action``, untouched."""
    page = client.get(page_url)
    assert page.status_code == 200
    return posted(find(page.content.decode(), "form", method="post", action=action))


# --- workspaces


def store_workspace(path) -> dict:
    connection = sqlite3.connect(path)
    try:
        return {
            "workspaces": connection.execute("SELECT * FROM workspaces").fetchall(),
            "members": connection.execute(
                "SELECT * FROM workspace_members ORDER BY project_path"
            ).fetchall(),
            "epochs": connection.execute(
                "SELECT * FROM project_state ORDER BY project_path"
            ).fetchall(),
        }
    finally:
        connection.close()


def memadmin_workspace() -> dict:
    row = Workspace.objects.get(upstream_id=1)
    return {
        "row": Workspace.objects.filter(pk=row.pk).values().get(),
        "members": list(row.members.order_by("project_identity").values()),
    }


SHARES = {
    "as the team store writes it": '["NAMING", "CONSTRAINTS"]',
    "compact": '["CONSTRAINTS","NAMING"]',
    "nothing": "[]",
    "a name outside the five": '["OPS_RULES", "NAMING"]',
    "not JSON": "NAMING",
}


# Member names the store may hold and memadmin's own checks would refuse for a new name.
NAMES = {
    "spaced": [
        (f"UPDATE workspace_members SET display_name = '  api  ' WHERE project_path = '{API}'")
    ],
    "empty": [f"UPDATE workspace_members SET display_name = '' WHERE project_path = '{WEB}'"],
    "shared by two": [
        "DROP INDEX idx_workspace_member_name",
        f"UPDATE workspace_members SET display_name = 'same' WHERE project_path IN ('{API}', '{WEB}')",
    ],
}


@pytest.fixture
def team(tmp_path):
    def make(shares: str = SHARES["as the team store writes it"], statements=()):
        path = build_edit_store(tmp_path / "context.db")
        run_sql(path, "UPDATE workspaces SET share_categories = ?", (shares,))
        for statement in statements:
            run_sql(path, statement)
        context_db_sync(path=path)
        return path

    return make


def workspace_post(client) -> tuple[str, dict]:
    row = Workspace.objects.get(upstream_id=1)
    action = reverse("interop:workspace_edit", args=[row.pk])
    return action, page_form(client, reverse("interop:workspace", args=[row.pk]), action)


@pytest.mark.parametrize("mode", ["through", "pending"])
@pytest.mark.parametrize("names", list(NAMES))
def test_an_untouched_workspace_form_keeps_odd_member_names(names, mode, team, settings, client_as):
    """A name with spaces around it, an empty one, one two members share: kept, nothing
    written; and a change of the shared categories leaves every name as the store holds it."""
    settings.MEMADMIN_STORE_WRITES = mode
    path = team(statements=NAMES[names])
    before = store_workspace(path), memadmin_workspace(), written()
    client = client_as("curator")
    action, data = workspace_post(client)
    response = client.post(action, data)
    assert response.status_code == 302, response.content.decode()
    assert (store_workspace(path), memadmin_workspace(), written()) == before
    action, data = workspace_post(client)
    response = client.post(action, {**data, "share_categories": ["ARCHITECTURE"]})
    assert response.status_code == 302, response.content.decode()
    assert memadmin_workspace()["members"] == before[1]["members"]
    if mode == "through":
        assert store_workspace(path)["members"] == before[0]["members"]
        (workspace,) = store_workspace(path)["workspaces"]
        assert '["ARCHITECTURE"]' in workspace


@pytest.mark.parametrize("mode", ["through", "pending"])
@pytest.mark.parametrize("shares", list(SHARES))
def test_an_untouched_workspace_form_changes_nothing(shares, mode, team, settings, client_as):
    """The store's share list stays as written; no epoch, no time, no audit event moves."""
    settings.MEMADMIN_STORE_WRITES = mode
    path = team(SHARES[shares])
    row = Workspace.objects.get(upstream_id=1)
    before = store_workspace(path), memadmin_workspace(), written()
    client = client_as("curator")
    action = reverse("interop:workspace_edit", args=[row.pk])
    data = page_form(client, reverse("interop:workspace", args=[row.pk]), action)
    response = client.post(action, data)
    assert response.status_code == 302, response.content.decode()
    assert (store_workspace(path), memadmin_workspace(), written()) == before


@pytest.mark.parametrize("mode", ["through", "pending"])
def test_a_rename_keeps_the_stored_share_list_as_written(mode, team, settings, client_as):
    """Renaming a member writes the name; the share list, untouched, keeps its spelling (in
    pending mode too, once the next sync pushes the rename)."""
    settings.MEMADMIN_STORE_WRITES = mode
    odd = SHARES["a name outside the five"]
    path = team(odd)
    client = client_as("curator")
    action, data = workspace_post(client)
    index = next(
        key.split("-")[1]
        for key, value in data.items()
        if key.endswith("-identity") and value == WEB
    )
    data[f"members-{index}-display_name"] = "web renamed"
    response = client.post(action, data)
    assert response.status_code == 302, response.content.decode()
    assert Workspace.objects.get(upstream_id=1).share_categories_raw == odd
    if mode == "pending":
        settings.MEMADMIN_STORE_WRITES = "through"
        context_db_sync(path=path)
    (workspace,) = store_workspace(path)["workspaces"]
    assert odd in workspace
    assert "web renamed" in {member[2] for member in store_workspace(path)["members"]}


# --- criteria, on a project synced from a real store (criteria are written to it)


@pytest.fixture
def synced_project(tmp_path, settings):
    settings.MEMADMIN_STORE_WRITES = "through"
    path = build_store(
        tmp_path / "context.db",
        rows=[make_row(content="Ops rule.", category="OPS_RULES"), make_row(content="Rule.")],
    )
    context_db_sync(path=path)
    return path, Project.objects.get(identity=PROJECT)


def store_meta(path) -> list:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT * FROM context_store_meta ORDER BY key").fetchall()
    finally:
        connection.close()


def category_state(project) -> list:
    return list(Category.objects.filter(project=project).order_by("pk").values())


@pytest.mark.parametrize("overridden", [False, True])
def test_untouched_criteria_forms_change_nothing(overridden, synced_project, client_as):
    """Each category's full criteria form (legacy ones too) and each in-place field form,
    posted back untouched, write nothing: no revision, no audit event, no store write."""
    path, project = synced_project
    if overridden:
        category = category_by_name(project, "PROJECT_RULES")
        criteria_override_save(
            category=category,
            criteria={**category.effective_criteria, "definition": "Ours, with  two spaces."},
            actor="system",
        )
    before = category_state(project), store_meta(path), written()
    client = client_as("curator")
    for name in project.categories.values_list("name", flat=True):
        action = reverse("taxonomy:edit", args=[project.pk, name])
        response = client.post(action, page_form(client, action, action))
        assert response.status_code == 302, (name, response.content.decode())
    # Each field's in-place form too (its Edit link opens it on the category's page).
    page = reverse("taxonomy:category", args=[project.pk, "PROJECT_RULES"])
    for field in FIELDS:
        action = reverse("taxonomy:field_save", args=[project.pk, "PROJECT_RULES", field])
        response = client.post(action, page_form(client, f"{page}?edit={field}", action))
        assert response.status_code == 302, (field, response.content.decode())
    assert (category_state(project), store_meta(path), written()) == before


@pytest.mark.parametrize("overridden", [False, True])
def test_an_untouched_category_admin_form_changes_nothing(overridden, synced_project, client_as):
    path, project = synced_project
    category = category_by_name(project, "WORKFLOW_RULES")
    if overridden:
        criteria_override_save(
            category=category,
            criteria={**category.effective_criteria, "definition": "Ours."},
            actor="system",
        )
    before = category_state(project), store_meta(path), written()
    client = client_as("admin")
    url = f"/admin/taxonomy/category/{category.pk}/change/"
    response = client.post(url, admin_form(client, url))
    assert response.status_code == 302, response.content.decode()
    assert (category_state(project), store_meta(path), written()) == before


# --- composites and the other admin pages


@pytest.fixture
def composite(project):
    head = memory_create(project=project, category="OPS_RULES", content="Head.", actor="agent")
    member = memory_create(project=project, category="OPS_RULES", content="Step.", actor="agent")
    return composite_create(head=head, members=[member], type="sequence", actor="agent")


def composite_state(composite) -> dict:
    return {
        "row": Composite.objects.filter(pk=composite.pk).values().get(),
        "history": composite.history.count(),
        "members": list(composite.members.values()),
    }


@pytest.mark.parametrize("form", ["type", "title", "cursor"])
def test_untouched_composite_forms_change_nothing(form, composite, client_as):
    """The composite page's type, title and "put the cursor on step" forms, posted back as
    shown, write nothing."""
    before = composite_state(composite), written()
    client = client_as("editor")
    action = reverse(f"composites:{form}", args=[composite.pk])
    page = client.get(reverse("composites:detail", args=[composite.pk])).content.decode()
    # The cursor's set form is the one of its three with a step to choose.
    (chosen,) = [
        candidate
        for candidate in find_all(page, "form", method="post", action=action)
        if form != "cursor" or find_all(candidate, id="cursor-step")
    ]
    data = posted(chosen)
    response = client.post(action, data)
    assert response.status_code == 302, response.content.decode()
    assert (composite_state(composite), written()) == before


@pytest.mark.parametrize("admin_page", ["project", "composite", "person"])
def test_untouched_admin_change_forms_change_nothing(admin_page, composite, people, client_as):
    """The admin's change forms of projects, composites and people, saved untouched."""
    target = {
        "project": composite.project,
        "composite": composite,
        "person": people["editor"],
    }[admin_page]
    url = {
        "project": f"/admin/projects/project/{target.pk}/change/",
        "composite": f"/admin/composites/composite/{target.pk}/change/",
        "person": f"/admin/auth/user/{target.pk}/change/",
    }[admin_page]
    before = stored(target), written()
    client = client_as("admin")
    response = client.post(url, admin_form(client, url))
    assert response.status_code == 302, response.content.decode()
    assert (stored(target), written()) == before


def stored(target) -> dict:
    """Return the object's row, its history versions and, for a person, their groups."""
    model = type(target)
    state = {"row": model.objects.filter(pk=target.pk).values().get()}
    if hasattr(model, "history"):
        state["history"] = model.history.filter(id=target.pk).count()
    if model is get_user_model():
        state["groups"] = sorted(target.groups.values_list("name", flat=True))
    return state


# --- people: a person with no role keeps having none


@pytest.fixture
def nobody(people):
    """A person in no role group (made outside memadmin's services, as `createuser` can)."""
    return get_user_model().objects.create_user(username="nobody", password="x" * 20)


def person_state(person) -> tuple:
    person = get_user_model().objects.get(pk=person.pk)
    return (
        sorted(person.groups.values_list("name", flat=True)),
        person.is_staff,
        person.is_superuser,
        role_of(person),
    )


def test_the_people_page_leaves_a_person_with_no_role_without_one(nobody, client_as):
    """Their row's select shows "no role", chosen; sending it untouched changes nothing."""
    before = person_state(nobody), written()
    client = client_as("admin")
    action = reverse("accounts:role", args=[nobody.pk])
    page = client.get(reverse("accounts:people")).content.decode()
    form = find(page, "form", method="post", action=action)
    assert text(find(find(form, "select", name="role"), "option", selected=True)) == "no role"
    response = client.post(action, posted(form))
    assert response.status_code == 302, response.content.decode()
    assert (person_state(nobody), written()) == before
    assert client.post(action, {**posted(form), "role": "editor"}).status_code == 302
    assert role_of(get_user_model().objects.get(pk=nobody.pk)) == "editor"


def test_the_admin_leaves_a_person_with_no_role_without_one(nobody, client_as):
    """The admin's change form of a person with no role, saved untouched, gives none."""
    before = person_state(nobody), written()
    client = client_as("admin")
    url = f"/admin/auth/user/{nobody.pk}/change/"
    response = client.post(url, admin_form(client, url))
    assert response.status_code == 302, response.content.decode()
    assert (person_state(nobody), written()) == before
