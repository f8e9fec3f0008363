"""Fixtures for the composites tests: a handful of memories in one project."""

import pytest

from memadmin.memories.services import memory_create


@pytest.fixture
def make_memories(project):
    """Return a factory: `n` memories of one category in the ops-six project."""
    counter = iter(range(1, 100_000))

    def make(n: int, *, category: str = "OPS_RULES", into=None, **fields):
        return [
            memory_create(
                project=into or project,
                category=category,
                content=f"{category} fact number {next(counter)}.",
                actor="agent",
                **fields,
            )
            for _ in range(n)
        ]

    return make


@pytest.fixture
def steps(make_memories):
    """A head and five step memories, all OPS_RULES."""
    return make_memories(6)
