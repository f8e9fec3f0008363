"""Killing the server between the store's commit and memadmin's: the next sync converges."""

import json
import signal

import pytest

from tests.interop.server_processes import manage, python
from tests.interop.test_store_writes import store_row
from tests.upstream_store import build_store, make_row

# Waits after the store committed (memadmin's transaction still open), so it can be killed there.
EDIT_THEN_HANG = """
import time
from memadmin.interop import store_writes
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update

def hang_after_the_store_committed(self):
    print("store committed", flush=True)
    time.sleep(600)

store_writes._Write.settle = hang_after_the_store_committed
memory_update(memory=Memory.objects.get(upstream_id=1), actor="system", content="Use the new VPN.")
"""

REPORT = """
import json
from memadmin.memories.models import Memory
rows = Memory.objects.filter(content="Use the new VPN.")
memory = rows.get()
print(json.dumps({
    "count": rows.count(),
    "all": Memory.objects.count(),
    "upstream_id": memory.upstream_id,
    "actor": memory.history.first().history_actor,
}))
"""


@pytest.mark.timeout(300)
def test_a_server_killed_between_the_two_commits_loses_nothing(tmp_path):
    """The store has the edit, memadmin not: the next sync brings it in once, by `import`."""
    path = build_store(
        tmp_path / "context.db", rows=[make_row(content="Use the VPN."), make_row(content="Tabs.")]
    )
    var_dir = tmp_path / "var"
    manage(var_dir, "migrate", "--verbosity", "0")
    manage(var_dir, "sync_context_db", str(path), "--no-progress")
    writer = python(var_dir, EDIT_THEN_HANG)
    try:
        assert writer.stdout.readline().strip() == "store committed"
        assert store_row(path, 1)["content"] == "Use the new VPN."
        writer.send_signal(signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait()
    summary = manage(var_dir, "sync_context_db", str(path), "--no-progress")
    assert "0 new, 1 changed, 1 unchanged" in summary
    report = python(var_dir, REPORT)
    result = json.loads(report.communicate(timeout=120)[0])
    assert result == {"count": 1, "all": 2, "upstream_id": 1, "actor": "import"}
