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


@pytest.fixture
def make_roots(project):
    """Return a factory: `count` category headers with one detail each, in the map's order."""

    def make(count: int, *, start: int = 0) -> list:
        heads = []
        for n in range(start, start + count):
            head, detail = (
                memory_create(
                    project=project, category="OPS_RULES", content=f"{text} {n:03d}.", actor="agent"
                )
                for text in ("Root", "Detail of root")
            )
            composite_create(head=head, type="sequence", members=[detail], actor="agent")
            heads.append(head)
        return heads

    return make


@pytest.fixture
def make_loose(project):
    """Return a factory: `count` memories of a category that no header reaches, by id."""

    def make(count: int, category: str = "ENV_STATE", *, start: int = 0) -> list:
        return [
            memory_create(
                project=project, category=category, content=f"Loose {n:03d}.", actor="agent"
            )
            for n in range(start, start + count)
        ]

    return make
