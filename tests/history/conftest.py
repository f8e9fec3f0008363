"""Fixtures for the audit tests: memories written through the services."""

import pytest

from memadmin.memories.services import memory_create


@pytest.fixture
def make_memory(project):
    """Return a factory: a memory of the `project` fixture, written by the agent."""

    def make(content: str, category: str = "OPS_RULES", *, actor="agent", **fields):
        return memory_create(
            project=project, category=category, content=content, actor=actor, **fields
        )

    return make


@pytest.fixture
def rename_research(tmp_path, settings, project):
    """Return a function that upgrades `project` to an ops-six where RESEARCH is STUDIES."""
    from pathlib import Path

    from memadmin.memories.pack_upgrade_services import pack_upgrade
    from memadmin.taxonomy.services import pack_load

    original = (Path(settings.BASE_DIR) / "packs" / "ops-six.toml").read_text()
    directory = tmp_path / "packs"
    directory.mkdir()
    text = original.replace('version = "1.0.0"', 'version = "2.0.0"', 1)
    (directory / "ops-six.toml").write_text(text.replace('name = "RESEARCH"', 'name = "STUDIES"'))

    def upgrade():
        settings.PACKS_DIR = directory
        pack_upgrade(
            project=project,
            spec=pack_load("ops-six"),
            mapping={"RESEARCH": "STUDIES"},
            actor="system",
        )

    return upgrade
