"""Criteria write-through: saving or clearing an override writes the store's keys at once."""

import json
import subprocess
import sys

import pytest

from memadmin.audit.models import AuditEvent
from memadmin.interop.write_through.criteria_services import (
    criteria_entries,
    criteria_key,
    surface_key,
)
from memadmin.interop.writing.services import context_db_sync
from memadmin.projects.models import Project
from memadmin.projects.store import CriteriaStoreRefused
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import criteria_override_clear, criteria_override_save
from tests.interop.conftest import PROJECT
from tests.interop.write_through.test_criteria_services import meta, other_tables
from tests.interop.write_through.test_store_refusals import HOLD_LOCK
from tests.upstream_store import STORE_UUID, make_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def synced(store):
    path = store(rows=[make_row(content="Use the VPN.")], sessions=[])
    context_db_sync(path=path)
    return path, Project.objects.get(identity=PROJECT)


def changed_naming(project) -> dict:
    criteria = dict(category_by_name(project, "NAMING").effective_criteria)
    criteria["definition"] = "Names we chose, and why."
    return criteria


def test_saving_an_override_writes_the_keys_and_the_hash(synced):
    """The store holds export_criteria's keys for the project, override included."""
    path, project = synced
    before = other_tables(path)
    criteria_override_save(
        category=category_by_name(project, "NAMING"),
        criteria=changed_naming(project),
        actor="system",
    )
    stored = meta(path)
    assert {k: v for k, v in stored.items() if k != "store_uuid"} == criteria_entries(project)
    value = json.loads(stored[criteria_key(PROJECT, "NAMING")])
    assert (value["source"], value["criteria"]["definition"]) == (
        "override",
        "Names we chose, and why.",
    )
    assert stored["store_uuid"] == STORE_UUID
    assert other_tables(path) == before
    criteria_override_clear(category=category_by_name(project, "NAMING"), actor="system")
    value = json.loads(meta(path)[criteria_key(PROJECT, "NAMING")])
    assert value["source"] == "pack"
    assert (
        json.loads(meta(path)[surface_key(PROJECT)])["surface_hash"]
        == json.loads(criteria_entries(project)[surface_key(PROJECT)])["surface_hash"]
    )


def test_a_busy_store_refuses_the_override_and_memadmin_keeps_the_old(synced, settings):
    """The agent holds the lock: refused, the override not saved, no event, the store as was."""
    path, project = synced
    settings.MEMADMIN_STORE_TIMEOUT = 0.3
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path), "5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(CriteriaStoreRefused, match="try again"):
            criteria_override_save(
                category=category_by_name(project, "NAMING"),
                criteria=changed_naming(project),
                actor="system",
            )
    finally:
        holder.kill()
        holder.wait()
    assert not category_by_name(project, "NAMING").is_overridden
    assert not AuditEvent.objects.filter(action="criteria_override_saved").exists()
    assert set(meta(path)) == {"store_uuid"}


def test_pull_only_writes_no_criteria(synced, settings):
    """With writes off, an override stays in memadmin."""
    path, project = synced
    settings.MEMADMIN_STORE_WRITES = "off"
    criteria_override_save(
        category=category_by_name(project, "NAMING"),
        criteria=changed_naming(project),
        actor="system",
    )
    assert set(meta(path)) == {"store_uuid"}


def test_a_clear_the_store_refuses_is_reported_on_the_page(synced, client_as):
    """The store gone: the clear is refused with the reason, and the override stays."""
    from django.urls import reverse

    path, project = synced
    criteria_override_save(
        category=category_by_name(project, "NAMING"),
        criteria=changed_naming(project),
        actor="system",
    )
    path.unlink()
    revision = category_by_name(project, "NAMING").revision
    response = client_as("curator").post(
        reverse("taxonomy:clear", args=[project.pk, "NAMING"]),
        {"revision": revision},
        follow=True,
    )
    assert response.status_code == 200
    assert "refused the criteria" in response.content.decode()
    assert category_by_name(project, "NAMING").is_overridden


def test_criteria_changed_on_a_team_server_reach_the_store_at_the_next_sync(synced, settings):
    """Kept pending where the file is out of reach; the sync where it is writes the keys."""
    from memadmin.interop.models import PendingCriteria

    path, project = synced
    settings.MEMADMIN_STORE_WRITES = "pending"
    criteria_override_save(
        category=category_by_name(project, "NAMING"),
        criteria=changed_naming(project),
        actor="system",
    )
    assert set(meta(path)) == {"store_uuid"}
    assert PendingCriteria.objects.filter(project=project).exists()
    settings.MEMADMIN_STORE_WRITES = "through"
    context_db_sync(path=path, pull_only=True)
    assert set(meta(path)) == {"store_uuid"}  # pull-only writes nothing
    context_db_sync(path=path)
    stored = meta(path)
    assert {k: v for k, v in stored.items() if k != "store_uuid"} == criteria_entries(project)
    assert not PendingCriteria.objects.exists()
