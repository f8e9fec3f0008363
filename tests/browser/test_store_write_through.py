"""A synced memory edited in the browser survives a restart, in memadmin and in the store."""

import pytest

from tests.interop.server_processes import Server, manage, migrated, python
from tests.interop.write_through.test_store_writes import store_row
from tests.upstream_store import build_store, make_row

pytestmark = [pytest.mark.browser]

PASSWORD = "write through the store"
PK_OF_ROW_1 = """
from memadmin.memories.models import Memory
print(Memory.objects.get(upstream_id=1).pk)
"""


def start(var_dir, path) -> Server:
    """Start the dashboard as `.ci/serve --context-db` does: migrate, sync, serve."""
    migrated(var_dir)
    manage(var_dir, "sync_context_db", str(path), "--no-progress")
    return Server(var_dir).start()


@pytest.mark.timeout(300)
def test_an_edit_survives_a_restart_and_is_in_the_store(page, tmp_path):
    """Edit in the browser, restart (which syncs again): the edit is still there, and upstream."""
    path = build_store(
        tmp_path / "context.db", rows=[make_row(content="Use the VPN."), make_row(content="Tabs.")]
    )
    var_dir = tmp_path / "var"
    server = start(var_dir, path)
    try:
        manage(var_dir, "person", "add", "editor", "--role", "editor", "--password", PASSWORD)
        pk = python(var_dir, PK_OF_ROW_1).communicate(timeout=60)[0].strip()
        page.goto(f"{server.url}/login/")
        page.fill("#id_username", "editor")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{server.url}/")  # the overview
        page.goto(f"{server.url}/memories/{pk}/edit/")
        page.fill("#id_content", "Use the office VPN for every deploy.")
        page.click("button:has-text('Save')")
        page.wait_for_url(f"{server.url}/memories/{pk}/")
        assert store_row(path, 1)["content"] == "Use the office VPN for every deploy."
    finally:
        server.stop()
    server = start(var_dir, path)
    try:
        page.goto(f"{server.url}/memories/{pk}/")
        assert (
            page.locator(".memory-content").inner_text() == "Use the office VPN for every deploy."
        )
    finally:
        server.stop()
    assert store_row(path, 1)["content"] == "Use the office VPN for every deploy."
