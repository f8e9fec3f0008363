"""One stale guard on every write path: a version is required, and a missing one is refused.

Each form that writes carries the version of what it showed (a memory's `updated_at`, a
composite's fingerprint, a category's revision, the admin's `edited_version`). A save made
from an older version, or one that sends none, writes nothing and comes back with both
versions: what is stored now and what the person typed. Mark synced is in
tests/headermap/test_stale_views.py; the bulk bar's confirmation in tests/memories.
"""

import json

import pytest
from django.urls import reverse

from memadmin.accounts.services import person_set_role
from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create, composite_set_title
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.services import project_set_budget
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import criteria_override_save
from tests.html_tree import attribute, find, find_all, submitted, text

pytestmark = pytest.mark.django_db

EDIT = {"category": "OPS_RULES", "importance": 50, "scope": "project", "status": "active"}


@pytest.fixture
def memory(project):
    return memory_create(project=project, category="OPS_RULES", content="Base.", actor="agent")


def hidden_fields(body: str, action: str) -> dict:
    """The hidden fields of the page's form that posts to `action` ("" without a value, as a
    browser sends it)."""
    form = find(body, "form", method="post", action=action)
    return {
        attribute(field, "name"): attribute(field, "value") or ""
        for field in find_all(form, "input", type="hidden")
    }


def test_a_memory_edit_without_its_version_is_refused_with_both_texts(client_as, memory):
    """`expected_updated_at` left empty saves nothing: 409, the memory now beside your text."""
    memory_update(memory=memory, content="Their text.", actor="agent")
    client = client_as("editor")
    response = client.post(
        reverse("memories:edit", args=[memory.pk]),
        {**EDIT, "content": "My text.", "expected_updated_at": ""},
    )
    assert response.status_code == 409
    body = response.content.decode()
    assert "did not say which version of the memory it edits" in body
    assert "Their text." in body and "My text." in body
    memory.refresh_from_db()
    assert memory.content == "Their text."
    # The refused form carries the version it showed: saving again is deliberate and works.
    again = client.post(
        reverse("memories:edit", args=[memory.pk]),
        {
            **EDIT,
            "content": "My text.",
            **hidden_fields(body, reverse("memories:edit", args=[memory.pk])),
        },
    )
    assert again.status_code == 302
    memory.refresh_from_db()
    assert memory.content == "My text."


def test_a_memory_edit_from_an_old_version_is_refused(client_as, memory):
    """A save over a newer save is refused with their version shown."""
    seen = memory.updated_at
    memory_update(memory=memory, content="Their text.", actor="agent", at_ms=seen + 1000)
    response = client_as("editor").post(
        reverse("memories:edit", args=[memory.pk]),
        {**EDIT, "content": "My text.", "expected_updated_at": seen},
    )
    assert response.status_code == 409
    assert b"Someone else saved this memory" in response.content
    memory.refresh_from_db()
    assert memory.content == "Their text."


@pytest.fixture
def composite(project, memory):
    step = memory_create(project=project, category="OPS_RULES", content="Step.", actor="agent")
    return composite_create(head=memory, type="sequence", members=[step], actor="agent")


def test_a_composite_delete_without_its_fingerprint_deletes_nothing(client_as, composite):
    """A delete POSTed without the confirmation's fingerprint is refused like a stale one."""
    response = client_as("editor").post(
        reverse("composites:delete", args=[composite.pk]), {"reason": "Gone."}
    )
    assert response.status_code == 409
    body = response.content.decode()
    assert "did not say which version of the composite it confirms" in body
    form = find(
        body, "form", method="post", action=reverse("composites:delete", args=[composite.pk])
    )
    assert find(form, "textarea", name="reason") and dict(submitted(form))["reason"] == "Gone."
    assert Composite.objects.filter(pk=composite.pk).exists()
    assert not AuditEvent.objects.filter(action="composite_deleted").exists()


@pytest.fixture
def overridden(project):
    category = category_by_name(project, "RESEARCH")
    return criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Ours."},
        actor="system",
    )


@pytest.mark.parametrize("verb", ["clear", "keep"])
def test_a_criteria_clear_or_keep_without_its_revision_is_refused(client_as, overridden, verb):
    """A clear (or keep) without `revision` changes nothing: 409 with both texts."""
    if verb == "keep":
        type(overridden).objects.filter(pk=overridden.pk).update(
            default_moved=True, previous_default=overridden.default_criteria
        )
    response = client_as("curator").post(
        reverse(f"taxonomy:{verb}", args=[overridden.project_id, "RESEARCH"])
    )
    assert response.status_code == 409
    conflict = find(response.content.decode(), "div", class_="conflict", role="alert")
    assert "nothing was done" in text(conflict)
    stored = category_by_name(overridden.project, "RESEARCH")
    assert stored.revision == overridden.revision
    assert stored.effective_criteria["definition"] == "Ours."


def test_a_criteria_save_without_its_revision_is_refused_with_the_text_kept(client_as, overridden):
    """The full editor posted without `revision` saves nothing and keeps what was typed."""
    client = client_as("curator")
    url = reverse("taxonomy:edit", args=[overridden.project_id, "RESEARCH"])
    data = hidden_fields(client.get(url).content.decode(), url)
    form = client.get(url).context["form"]
    posted = {name: form[name].value() or "" for name in form.fields}
    for formset in form.formsets.values():  # the list fields: management form and boxes
        posted |= {box.html_name: box.value() for box in formset.management_form}
        posted |= {box.html_name: box.value() or "" for item in formset for box in item}
    posted |= {"definition": "My definition.", "revision": ""}
    posted = {name: value for name, value in posted.items() if value is not None}
    assert "revision" in data
    response = client.post(url, posted)
    assert response.status_code == 409
    body = response.content.decode()
    assert "My definition." in body and "Ours." in body
    assert category_by_name(overridden.project, "RESEARCH").revision == overridden.revision


def admin_form(client, url: str) -> dict:
    """Return the admin change form's fields as the page fills them in."""
    form = client.get(url).context["adminform"].form
    values = {}
    for name in form.fields:
        value = form[name].value()
        if isinstance(value, dict | list):
            value = json.dumps(value)
        if value is not None and value is not False:
            values[name] = "on" if value is True else value
    return values


def test_the_admin_refuses_to_save_a_memory_over_a_newer_edit(client_as, memory):
    """A memory changed since its admin form was opened is not overwritten: both are shown."""
    client = client_as("admin")
    url = f"/admin/memories/memory/{memory.pk}/change/"
    opened = admin_form(client, url)
    memory_update(memory=memory, content="Their text.", actor="agent")
    response = client.post(url, {**opened, "content": "My text."})
    assert response.status_code == 200  # the form again, not a redirect
    body = response.content.decode()
    assert "was saved by someone else since this form was opened" in body
    assert "now &#x27;Their text.&#x27;, yours &#x27;My text.&#x27;" in body
    (form,) = [
        form
        for form in find_all(body, "form", method="post")
        if find_all(form, "textarea", name="content")
    ]
    assert dict(submitted(form))["content"] == "My text."
    memory.refresh_from_db()
    assert memory.content == "Their text."
    # The refused form now carries the stored version: saving again is deliberate.
    again = response.context["adminform"].form.data["edited_version"]
    assert (
        client.post(url, {**opened, "content": "My text.", "edited_version": again}).status_code
        == 302
    )
    memory.refresh_from_db()
    assert memory.content == "My text."


def test_the_admin_refuses_a_change_form_without_its_version(client_as, memory):
    """An admin change posted without `edited_version` saves nothing."""
    client = client_as("admin")
    url = f"/admin/memories/memory/{memory.pk}/change/"
    opened = admin_form(client, url)
    del opened["edited_version"]
    response = client.post(url, {**opened, "content": "My text."})
    assert b"did not say which version of the memory it edits" in response.content
    memory.refresh_from_db()
    assert memory.content == "Base."


@pytest.mark.parametrize("model", ["project", "composite", "category", "person"])
def test_every_admin_change_form_refuses_a_stale_save(client_as, project, composite, people, model):
    """Each model the admin writes through a service carries its version and is guarded."""
    category = category_by_name(project, "RESEARCH")
    url, change, typed = {
        "project": (
            f"/admin/projects/project/{project.pk}/change/",
            lambda: project_set_budget(project=project, budget=6000, actor="agent"),
            {"injection_budget": 7000},
        ),
        "composite": (
            f"/admin/composites/composite/{composite.pk}/change/",
            lambda: composite_set_title(composite=composite, title="Theirs", actor="agent"),
            {"title": "Mine"},
        ),
        "category": (
            f"/admin/taxonomy/category/{category.pk}/change/",
            lambda: criteria_override_save(
                category=category,
                criteria={**category.effective_criteria, "definition": "Theirs."},
                actor="system",
            ),
            {
                "override_criteria": json.dumps(
                    {**category.effective_criteria, "definition": "Mine."}
                )
            },
        ),
        "person": (
            f"/admin/auth/user/{people['viewer'].pk}/change/",
            lambda: person_set_role(user=people["viewer"], role="editor", actor=people["admin"]),
            {"role": "curator"},
        ),
    }[model]
    client = client_as("admin")
    opened = admin_form(client, url)
    assert opened.get("edited_version"), "the change form carries no version"
    change()
    events = AuditEvent.objects.count()
    response = client.post(url, {**opened, **typed})
    assert response.status_code == 200
    assert b"was saved by someone else since this form was opened" in response.content
    assert AuditEvent.objects.count() == events
