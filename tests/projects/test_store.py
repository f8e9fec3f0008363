"""The store seam: the backend the settings name is the one every write goes through."""

import io

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from memadmin.interop.store_backend import ContextDbStore
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.store import (
    NOTHING,
    NoStore,
    Receipt,
    StoreChange,
    StoreRefused,
    store_backend,
)

WRITTEN: list[tuple[str, list[StoreChange]]] = []


class RecordingStore(NoStore):
    """A store that keeps what it is asked to write, and refuses the text "refuse me"."""

    def write_memories(self, *, project, changes) -> Receipt:
        if any(change.memory.content == "refuse me" for change in changes):
            raise StoreRefused("This store refuses it.", project=project, code="refused")
        WRITTEN.append((project.name, [(change.kind, change.memory.content) for change in changes]))
        return NOTHING


RECORDING = {"BACKEND": "tests.projects.test_store.RecordingStore"}


@pytest.fixture
def written():
    WRITTEN.clear()
    yield WRITTEN
    WRITTEN.clear()


def test_the_settings_name_the_context_db_store():
    """The project's settings write through interop's context.db backend."""
    assert isinstance(store_backend(), ContextDbStore)


def test_without_the_setting_nothing_is_written_outside_memadmin(settings):
    """Without MEMADMIN_STORE the backend is NoStore, which writes nothing."""
    del settings.MEMADMIN_STORE
    assert type(store_backend()) is NoStore
    assert store_backend() is store_backend()  # made once


@pytest.mark.django_db
def test_a_memory_edit_goes_through_the_backend_the_settings_name(make_project, written):
    """Creating and editing a memory hands each change to the named backend, in order."""
    project = make_project()
    with override_settings(MEMADMIN_STORE=RECORDING):
        memory = memory_create(project=project, category="OPS_RULES", content="One.", actor="agent")
        memory_update(memory=memory, content="One, edited.", actor="agent")
    assert written == [
        (project.name, [("create", "One.")]),
        (project.name, [("update", "One, edited.")]),
    ]


@pytest.mark.django_db
def test_a_backend_refusal_writes_nothing_in_memadmin(make_project, written):
    """A write the backend refuses leaves memadmin's rows as they were."""
    project = make_project()
    with override_settings(MEMADMIN_STORE=RECORDING), pytest.raises(StoreRefused):
        memory_create(project=project, category="OPS_RULES", content="refuse me", actor="agent")
    assert not Memory.objects.filter(project=project).exists()
    assert written == []


@pytest.mark.django_db
def test_a_backend_that_cannot_be_imported_is_named_and_nothing_is_written(make_project):
    """A mistyped MEMADMIN_STORE says which setting names what, and the edit writes nothing."""
    project = make_project()
    wrong = {"BACKEND": "memadmin.interop.store_backend.ContextDbStorre"}
    with override_settings(MEMADMIN_STORE=wrong), pytest.raises(ImproperlyConfigured) as refused:
        memory_create(project=project, category="OPS_RULES", content="One.", actor="agent")
    assert str(refused.value).startswith(
        "MEMADMIN_STORE[\"BACKEND\"] names 'memadmin.interop.store_backend.ContextDbStorre', "
        "which cannot be imported"
    )
    assert not Memory.objects.filter(project=project).exists()


def test_the_system_checks_name_a_backend_that_cannot_be_imported():
    """`manage.py check` (and the worker, which checks as it starts) reports a mistyped
    MEMADMIN_STORE before any write needs it; the settings as shipped pass."""
    call_command("check", stdout=io.StringIO())
    wrong = {"BACKEND": "memadmin.interop.store_backend.ContextDbStorre"}
    with override_settings(MEMADMIN_STORE=wrong), pytest.raises(SystemCheckError) as refused:
        call_command("check", stdout=io.StringIO())
    assert '(memadmin.E001) MEMADMIN_STORE["BACKEND"] names' in str(refused.value)
    assert "ContextDbStorre" in str(refused.value)
