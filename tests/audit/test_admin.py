"""Django's admin goes through the services: audited, validated, and unable to break a rule."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.memories.archive_services import memory_supersede
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from memadmin.taxonomy.selectors import category_by_name
from memadmin.web.service_admin import ReadOnlyAdmin, ServiceAdmin
from tests.html_tree import attribute, find, find_all

pytestmark = pytest.mark.django_db

MEMORY = {"category": "OPS_RULES", "importance": 50, "scope": "project", "status": "active"}


def written():
    return AuditEvent.objects.count(), Memory.history.count()


def change_form(client, url: str, data: dict):
    """Post an admin change form as a person does: with the version the form was opened at."""
    body = client.get(url).content.decode()
    (form,) = [
        form
        for form in find_all(body, "form", method="post")
        if find_all(form, name="edited_version")
    ]
    version = attribute(find(form, "input", type="hidden", name="edited_version"), "value")
    return client.post(url, {**data, "edited_version": version})


def test_every_model_of_the_dashboard_is_in_the_admin():
    """Each memadmin model, versions aside, has a page in the admin."""
    missing = [
        model._meta.label
        for model in apps.get_models()
        if model.__module__.startswith("memadmin")
        and not model.__name__.startswith("Historical")
        and not admin.site.is_registered(model)
    ]
    assert missing == []


def test_no_admin_page_deletes_around_a_service(people):
    """Delete is offered only where a delete service exists; all else is service or read only."""
    request = RequestFactory().get("/admin/")
    request.user = people["admin"]
    for model, model_admin in admin.site._registry.items():
        assert isinstance(model_admin, ServiceAdmin | ReadOnlyAdmin), model._meta.label
        may_delete = model_admin.has_delete_permission(request)
        has_service = getattr(model_admin, "service_delete", None) is not None
        assert may_delete == has_service, model._meta.label


def test_adding_a_memory_in_the_admin_is_audited_with_its_reason(client_as, project):
    """The admin's add form calls memory_create with the signed-in admin as actor."""
    response = client_as("admin").post(
        "/admin/memories/memory/add/",
        {**MEMORY, "project": project.pk, "content": "Added in the admin.", "reason": "test"},
    )
    assert response.status_code == 302
    memory = Memory.objects.get()
    event = AuditEvent.objects.get(object_type="memory", object_id=str(memory.pk))
    assert (event.action, event.actor_label, event.reason) == ("created", "admin", "test")
    assert memory.history.get().history_actor == "admin"


def test_the_admin_cannot_add_a_memory_outside_the_pack(client_as, project):
    """A category the pack does not define is refused with the service's message."""
    before = written()
    response = client_as("admin").post(
        "/admin/memories/memory/add/",
        {**MEMORY, "project": project.pk, "category": "NOPE", "content": "x"},
    )
    assert response.status_code == 200
    assert "is not a category of Ops&#x27;s pack" in response.content.decode()
    assert written() == before


def test_the_admin_cannot_create_a_duplicate(client_as, project):
    """An exact duplicate is refused in the admin as everywhere."""
    memory_create(project=project, category="OPS_RULES", content="Drain first.", actor="agent")
    before = written()
    response = client_as("admin").post(
        "/admin/memories/memory/add/",
        {**MEMORY, "project": project.pk, "content": "drain FIRST."},
    )
    assert b"An identical memory already exists" in response.content
    assert written() == before


def test_editing_a_memory_in_the_admin_goes_through_memory_update(client_as, project):
    """A change records a version with the admin and reason, and resets as an edit does."""
    memory = memory_create(
        project=project, category="OPS_RULES", content="Old.", actor="agent", shareable=True
    )
    response = change_form(
        client_as("admin"),
        f"/admin/memories/memory/{memory.pk}/change/",
        {**MEMORY, "content": "New.", "shareable": "on", "reason": "typo"},
    )
    assert response.status_code == 302
    memory.refresh_from_db()
    assert memory.content == "New."
    newest = memory.history.first()
    assert (newest.history_actor, newest.history_change_reason) == ("admin", "typo")


def test_the_admin_cannot_make_a_superseded_memory_active_again(client_as, project):
    """A superseded memory's status is read only: it cannot stand beside its successor."""
    old = memory_create(project=project, category="OPS_RULES", content="Old way.", actor="agent")
    new = memory_create(project=project, category="OPS_RULES", content="New way.", actor="agent")
    memory_supersede(memory=old, successor=new, actor="agent")
    response = change_form(
        client_as("admin"),
        f"/admin/memories/memory/{old.pk}/change/",
        {**MEMORY, "content": "Old way.", "reason": "bring it back"},
    )
    assert response.status_code == 302
    old.refresh_from_db()
    assert (old.status, old.superseded_by_id) == ("archived", new.pk)


def test_memories_cannot_be_deleted_in_the_admin(client_as, project):
    """There is no delete service for memories: the admin's delete is refused."""
    memory = memory_create(project=project, category="OPS_RULES", content="Stay.", actor="agent")
    client = client_as("admin")
    assert client.get(f"/admin/memories/memory/{memory.pk}/delete/").status_code == 403
    assert (
        client.post(f"/admin/memories/memory/{memory.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert Memory.objects.filter(pk=memory.pk).exists()


def test_project_budget_goes_through_its_service(client_as, project):
    """A budget outside 500..20000 is refused; a good one is audited."""
    client = client_as("admin")
    refused = change_form(
        client, f"/admin/projects/project/{project.pk}/change/", {"injection_budget": 50}
    )
    assert b"The budget must be between" in refused.content
    change_form(client, f"/admin/projects/project/{project.pk}/change/", {"injection_budget": 6000})
    event = AuditEvent.objects.get(action="budget_changed")
    assert (event.actor_label, event.changes) == ("admin", {"injection_budget": [4000, 6000]})


def test_criteria_override_goes_through_the_criteria_service(client_as, project):
    """An override saved in the admin is validated and recorded like one saved on its page."""
    category = category_by_name(project, "OPS_RULES")
    url = f"/admin/taxonomy/category/{category.pk}/change/"
    client = client_as("admin")
    import json

    bad = {**category.effective_criteria, "definition": ""}
    assert b"Definition" in change_form(client, url, {"override_criteria": json.dumps(bad)}).content
    assert not category_by_name(project, "OPS_RULES").is_overridden
    good = {**category.effective_criteria, "definition": "Admin wording."}
    change_form(client, url, {"override_criteria": json.dumps(good), "reason": "clearer"})
    assert (
        category_by_name(project, "OPS_RULES").effective_criteria["definition"] == "Admin wording."
    )
    event = AuditEvent.objects.get(action="criteria_override_saved")
    assert (event.actor_label, event.reason) == ("admin", "clearer")


def test_composites_are_created_and_deleted_through_their_services(client_as, project):
    """The admin's composite add and delete record composite_created and composite_deleted."""
    head = memory_create(project=project, category="OPS_RULES", content="Head.", actor="agent")
    client = client_as("admin")
    response = client.post(
        "/admin/composites/composite/add/",
        {
            "head": head.pk,
            "type": "theme",
            "title": "T",
            "members-TOTAL_FORMS": 0,
            "members-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    composite = Composite.objects.get()
    change_form(client, f"/admin/composites/composite/{composite.pk}/delete/", {"post": "yes"})
    assert not Composite.objects.exists()
    actions = list(
        AuditEvent.objects.filter(object_type="composite").values_list("action", "actor_label")
    )
    assert sorted(actions) == [("composite_created", "admin"), ("composite_deleted", "admin")]


def test_audit_events_are_read_only_in_the_admin(client_as, project):
    """No one edits or deletes the record of what happened, not even an admin."""
    event = AuditEvent.objects.first()
    client = client_as("admin")
    assert client.get(f"/admin/audit/auditevent/{event.pk}/change/").status_code == 200
    assert (
        client.post(f"/admin/audit/auditevent/{event.pk}/change/", {"action": "x"}).status_code
        == 403
    )
    assert (
        client.post(f"/admin/audit/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    event.refresh_from_db()
    assert event.action != "x"


def test_people_get_roles_through_the_account_services(client_as, people):
    """Adding a person and changing a role in the admin are audited; the last admin stays."""
    client = client_as("admin")
    response = client.post(
        "/admin/auth/user/add/",
        {"username": "dana", "email": "", "role": "editor", "password": "a long enough secret"},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    dana = get_user_model().objects.get(username="dana")
    change_form(
        client, f"/admin/auth/user/{dana.pk}/change/", {"role": "curator", "reason": "promoted"}
    )
    event = AuditEvent.objects.get(action="role_changed")
    assert (event.actor_label, event.changes, event.reason) == (
        "admin",
        {"role": ["editor", "curator"]},
        "promoted",
    )
    refused = change_form(
        client, f"/admin/auth/user/{people['admin'].pk}/change/", {"role": "viewer"}
    )
    assert b"is the last admin" in refused.content
