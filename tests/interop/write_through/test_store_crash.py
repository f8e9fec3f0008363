"""Killing the server between the store's commit and memadmin's: the next sync converges."""

import contextlib
import json
import signal
import threading
import time
import urllib.error

import pytest

from tests.html_tree import attribute, find
from tests.interop.server_processes import Browserless, free_port, manage, migrated, python
from tests.interop.write_through.test_store_writes import store_row
from tests.upstream_store import build_store, make_row

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


# A dashboard served over HTTP whose save waits after the store committed, to be killed there.
SERVE_AND_HANG = """
import sys, time
from django.core.servers.basehttp import run
from django.core.wsgi import get_wsgi_application
from memadmin.interop.write_through import store_writes

def hang_after_the_store_committed(self):
    print("store committed", flush=True)
    time.sleep(600)

store_writes._Write.settle = hang_after_the_store_committed
application = get_wsgi_application()
print("serving", flush=True)
run("127.0.0.1", int(sys.argv[1]), application, threading=True)
"""

PK_OF_ROW_1 = """
from memadmin.memories.models import Memory
print(Memory.objects.get(upstream_id=1).pk)
"""


@pytest.mark.timeout(300)
def test_a_served_dashboard_killed_mid_save_loses_nothing(tmp_path):
    """A real server saving an edit is killed after the store's commit: the next sync
    (the restart) brings the edit in once, and it is writable again."""
    path = build_store(
        tmp_path / "context.db", rows=[make_row(content="Use the VPN."), make_row(content="Tabs.")]
    )
    var_dir = tmp_path / "var"
    migrated(var_dir)
    manage(var_dir, "sync_context_db", str(path), "--no-progress")
    manage(var_dir, "person", "add", "editor", "--role", "editor", "--password", "kill me softly")
    pk = python(var_dir, PK_OF_ROW_1).communicate(timeout=60)[0].strip()
    port = free_port()
    server = python(var_dir, SERVE_AND_HANG.replace("int(sys.argv[1])", str(port)))
    try:
        assert server.stdout.readline().strip() == "serving"
        client = Browserless(f"http://127.0.0.1:{port}")
        for _ in range(100):
            try:
                client.login("editor", "kill me softly")
                break
            except (urllib.error.URLError, ConnectionError, StopIteration):
                time.sleep(0.2)
        form = client.get(f"/memories/{pk}/edit/")
        edit = find(form, "form", method="post", action=f"/memories/{pk}/edit/")
        expected = attribute(find(edit, "input", name="expected_updated_at"), "value")
        fields = {
            "content": "Use the new VPN.",
            "category": "PROJECT_RULES",
            "importance": "50",
            "scope": "project",
            "status": "active",
            "expected_updated_at": expected,
        }
        saving = threading.Thread(
            target=lambda: _ignore_errors(client.post, f"/memories/{pk}/edit/", fields),
            daemon=True,
        )
        saving.start()
        assert server.stdout.readline().strip() == "store committed"
        assert store_row(path, 1)["content"] == "Use the new VPN."
        server.send_signal(signal.SIGKILL)
        saving.join(timeout=30)
    finally:
        server.kill()
        server.wait()
    summary = manage(var_dir, "sync_context_db", str(path), "--no-progress")
    assert "0 new, 1 changed, 1 unchanged" in summary
    result = json.loads(python(var_dir, REPORT).communicate(timeout=120)[0])
    assert result == {"count": 1, "all": 2, "upstream_id": 1, "actor": "import"}


def _ignore_errors(call, *args):
    # The server is killed mid-request, as the test intends.
    with contextlib.suppress(OSError):
        call(*args)
