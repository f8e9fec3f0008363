"""Criteria into the store: namespaced keys in context_store_meta, a backup, no other table."""

import json
import sqlite3

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from memadmin.audit.models import AuditEvent
from memadmin.interop.write_through.criteria_services import (
    criteria_entries,
    criteria_export,
    criteria_key,
    surface_key,
)
from memadmin.projects.services import project_create
from memadmin.taxonomy.selectors import category_by_name, current_surface_hash
from memadmin.taxonomy.services import criteria_override_save
from tests.interop.conftest import sha256
from tests.upstream_store import STORE_UUID, write_not_sqlite, write_sqlite_without_memories

pytestmark = pytest.mark.django_db


def meta(path) -> dict[str, str]:
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return dict(connection.execute("SELECT key, value FROM context_store_meta"))
    finally:
        connection.close()


def other_tables(path) -> list[str]:
    """Return the store's whole content except context_store_meta, as SQL text."""
    connection = sqlite3.connect(path)
    try:
        return [
            line
            for line in connection.iterdump()
            if "context_store_meta" not in line and not line.startswith('INSERT INTO "sqlite_')
        ]
    finally:
        connection.close()


def test_entries_are_one_key_per_category_and_one_for_the_hash(mc_project):
    """Each category gets a versioned JSON value; the hash key lists the categories."""
    entries = criteria_entries(mc_project)
    identity = mc_project.identity
    rules = json.loads(entries[criteria_key(identity, "PROJECT_RULES")])
    assert rules["format"] == "memadmin.criteria"
    assert rules["version"] == 1
    assert rules["source"] == "pack"
    assert rules["criteria"] == category_by_name(mc_project, "PROJECT_RULES").effective_criteria
    surface = json.loads(entries[surface_key(identity)])
    assert surface["surface_hash"] == current_surface_hash(mc_project)
    assert surface["categories"][:2] == ["PROJECT_RULES", "ARCHITECTURE"]
    assert len(entries) == len(surface["categories"]) + 1


def test_an_override_is_what_is_exported(mc_project):
    """The effective criteria are exported: the override when there is one."""
    category = category_by_name(mc_project, "NAMING")
    changed = {**category.effective_criteria, "definition": "Names we chose, and why."}
    criteria_override_save(category=category, criteria=changed, actor="system")
    value = json.loads(criteria_entries(mc_project)[criteria_key(mc_project.identity, "NAMING")])
    assert value["source"] == "override"
    assert value["criteria"]["definition"] == "Names we chose, and why."


def test_export_writes_only_its_keys_after_a_backup(store, mc_project, tmp_path):
    """The keys land in context_store_meta; every other table keeps its content."""
    path = store()
    before_tables = other_tables(path)
    export = criteria_export(path=path, project=mc_project, backup_dir=tmp_path / "backups")
    written = meta(path)
    assert written["store_uuid"] == STORE_UUID
    for key in export.keys:
        assert key in written
    assert export.surface_hash == current_surface_hash(mc_project)
    assert other_tables(path) == before_tables
    assert export.backup_path.parent == tmp_path / "backups"
    assert "memadmin.criteria" not in "".join(meta(export.backup_path))
    event = AuditEvent.objects.get(action="criteria_exported")
    assert event.changes["keys"] == len(export.keys)


def test_exporting_twice_writes_the_same_values(store, mc_project, tmp_path):
    """Unchanged criteria export to the same bytes."""
    path = store()
    criteria_export(path=path, project=mc_project, backup_dir=tmp_path / "b")
    first = meta(path)
    criteria_export(path=path, project=mc_project, backup_dir=tmp_path / "b")
    assert meta(path) == first


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda tmp: write_not_sqlite(tmp / "x.db"), "not an SQLite database"),
        (lambda tmp: write_sqlite_without_memories(tmp / "y.db"), "not a magic-context store"),
        (lambda tmp: tmp / "missing.db", "no such file"),
    ],
)
def test_a_file_that_is_not_a_store_is_refused(tmp_path, mc_project, make, words):
    """Anything but a magic-context store is refused and left as it was."""
    path = make(tmp_path)
    before = sha256(path)
    with pytest.raises(ValidationError, match=words):
        criteria_export(path=path, project=mc_project, backup_dir=tmp_path / "b")
    assert sha256(path) == before
    assert not AuditEvent.objects.filter(action="criteria_exported").exists()


def test_a_store_without_meta_table_is_refused(store, mc_project, tmp_path):
    """A store lacking context_store_meta is refused, not given one."""
    path = store()
    connection = sqlite3.connect(path)
    connection.execute("DROP TABLE context_store_meta")
    connection.commit()
    connection.close()
    with pytest.raises(ValidationError, match="no context_store_meta"):
        criteria_export(path=path, project=mc_project, backup_dir=tmp_path / "b")


def test_a_project_without_pack_has_nothing_to_export(store, db, tmp_path):
    """A project with no pack is refused before the store is opened."""
    project = project_create(identity="git:" + "c" * 40, name="Bare", actor="system")
    with pytest.raises(ValidationError, match="no pack"):
        criteria_export(path=store(), project=project, backup_dir=tmp_path / "b")


def test_command_prints_the_keys(store, mc_project, tmp_path, capsys):
    """`export_criteria PATH --project P` reports the backup and every key written."""
    path = store()
    call_command(
        "export_criteria",
        str(path),
        "--project",
        mc_project.identity,
        "--backup-dir",
        str(tmp_path / "b"),
    )
    out = capsys.readouterr().out
    assert "backup copy:" in out
    assert surface_key(mc_project.identity) in out


def test_command_names_an_unknown_project(store):
    """An identity memadmin does not hold is named."""
    with pytest.raises(CommandError, match="no project git:"):
        call_command("export_criteria", str(store()), "--project", "git:" + "9" * 40)
