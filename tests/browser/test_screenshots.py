"""`manage.py screenshots DIR` saves the main pages at two widths in both themes."""

import threading

import pytest
from django.core.management import call_command
from django.db import connections

from memadmin.composites.services import composite_create
from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def run_in_own_thread(work) -> None:
    """Run `work` in a thread of its own, as the command runs from a shell.

    Playwright's sync API refuses a thread whose asyncio loop runs, and the browser tests
    before this one leave pytest-playwright's loop running in the main thread.
    """
    failures = []

    def run():
        try:
            work()
        except BaseException as error:  # re-raised below, in the test's thread
            failures.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]


def test_the_command_saves_every_page_at_both_widths_in_both_themes(people, project, tmp_path):
    """Twenty-eight PNGs: overview, memory list, memory, composite, ledger, map and Structure;
    390 and 1400 px; light and dark."""
    head = memory_create(project=project, category="OPS_RULES", content="Deploy.", actor="agent")
    step = memory_create(project=project, category="OPS_RULES", content="Drain.", actor="agent")
    composite_create(head=head, type="sequence", members=[step], actor="agent")
    run_in_own_thread(lambda: call_command("screenshots", str(tmp_path)))
    names = sorted(path.name for path in tmp_path.glob("*.png"))
    expected = sorted(
        f"{page}-{width}-{theme}.png"
        for page in ("overview", "memories", "memory", "composite", "ledger", "map", "structure")
        for width in (390, 1400)
        for theme in ("light", "dark")
    )
    assert names == expected
    assert all((tmp_path / name).read_bytes().startswith(b"\x89PNG") for name in names)
