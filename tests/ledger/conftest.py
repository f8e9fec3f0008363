"""Fixtures for the ledger: a project with a few memories, a composite, and counts."""

import pytest

from memadmin.composites.services import composite_create
from memadmin.memories.services import memory_create

NOW = 1_800_000_000_000


@pytest.fixture
def remember(project):
    """Return a function that writes a memory into the ops-six project."""

    def write(content: str, category: str = "OPS_RULES", **fields):
        fields.setdefault("at_ms", NOW - 10_000)
        return memory_create(
            project=project, category=category, content=content, actor="agent", **fields
        )

    return write


@pytest.fixture
def sop(remember):
    """A header with three details in a sequence, and one standalone memory."""
    header = remember("Release SOP: three steps.", importance=90)
    steps = [remember(f"Step {n}: do thing {n}.", importance=40) for n in (1, 2, 3)]
    composite_create(head=header, type="sequence", members=steps, actor="agent")
    standalone = remember("Deploys happen on weekdays.", category="ENV_STATE")
    return {"header": header, "steps": steps, "standalone": standalone}
