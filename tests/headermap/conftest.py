"""A small two-layer map: a theme header over two category headers and their details."""

import pytest

from memadmin.composites.services import composite_create
from memadmin.memories.services import memory_create


@pytest.fixture
def two_layers(project):
    """Return the memories by name: theme, ops, env, d1..d4, loose."""

    def make(name, category="OPS_RULES"):
        return memory_create(
            project=project, category=category, content=f"{name} memory text.", actor="agent"
        )

    m = {name: make(name) for name in ("theme", "ops", "d1", "d2", "loose")}
    m.update({name: make(name, "ENV_STATE") for name in ("env", "d3", "d4")})
    composite_create(head=m["theme"], type="theme", members=[m["ops"], m["env"]], actor="agent")
    composite_create(head=m["ops"], type="sequence", members=[m["d1"], m["d2"]], actor="agent")
    composite_create(head=m["env"], type="theme", members=[m["d3"], m["d4"]], actor="agent")
    return m
